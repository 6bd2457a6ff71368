import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenantFixture, type TenantFixture } from './test-support/identity.ts';
import { createTestServer, type TestServer } from './test-support/test-server.ts';
import { TOKEN_PERMISSIONS, TokenClient, privateKey, rule, tokenOf } from './test-support/tokens.ts';

let server: TestServer;
let a: TenantFixture;
let tokens: TokenClient;

beforeEach(async () => {
  server = await createTestServer();
  a = await createTenantFixture(server.services, 'Tenant A');
  const app = await privateKey(server.services, a.tenant.id, {
    permissions: [...TOKEN_PERMISSIONS],
    rules: [rule('/', TOKEN_PERMISSIONS, 'reveal')],
  });
  tokens = new TokenClient(server.app, app.key);
});

afterEach(async () => {
  await server.dispose();
});

function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  return server.app.inject({
    method,
    url,
    headers: { 'svc-api-key': a.admin.key },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

describe('token bodies are neither coerced nor rewritten', () => {
  it('PATCH naming another id or type is the core 400 "cannot be changed", and changes nothing', async () => {
    const token = tokenOf(await tokens.create({ type: 'token', data: 'secret' }), 201);
    for (const [field, value] of [
      ['id', 'new'],
      ['type', 'card'],
    ] as const) {
      const response = await tokens.update(token.id, { [field]: value });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ errors: { [field]: ['cannot be changed'] } });
    }
    // Repeating the current values is no change.
    const same = await tokens.update(token.id, { id: token.id, type: 'token', metadata: { k: 'v' } });
    expect(tokenOf(same).metadata).toEqual({ k: 'v' });
    expect(tokenOf(await tokens.get(token.id))).toMatchObject({ id: token.id, type: 'token' });
  });

  it('refuses metadata values that are not strings instead of storing them as strings', async () => {
    const created = await tokens.create({ type: 'token', data: 'x', metadata: { a: null, b: 1 } });
    expect(created.statusCode).toBe(400);
    expect(Object.keys(created.json().errors as object)[0]).toMatch(/^metadata\.(a|b)$/);
    expect((await tokens.list()).json()).toMatchObject({ pagination: { total_items: 0 } });

    const token = tokenOf(await tokens.create({ type: 'token', data: 'x', metadata: { a: 'A' } }), 201);
    const patched = await tokens.update(token.id, { metadata: { b: 1 } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json()).toMatchObject({ errors: { 'metadata.b': expect.any(Array) } });
    // `null` in a metadata patch still removes the key.
    expect(tokenOf(await tokens.update(token.id, { metadata: { a: null } })).metadata).toEqual({});
  });

  it('refuses a boolean sent as a string in a body', async () => {
    const response = await tokens.create({ type: 'token', data: 'x', deduplicate_token: 'true' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: { deduplicate_token: expect.any(Array) } });
  });

  it('ignores unknown fields on create', async () => {
    const created = await tokens.create({ type: 'token', data: 'x', unknown_field: 1 });
    expect(created.statusCode).toBe(201);
    expect(created.json()).not.toHaveProperty('unknown_field');
  });

  it('search: null page and size mean the defaults; a string page is refused', async () => {
    tokenOf(await tokens.create({ type: 'token', data: 'x' }), 201);
    const page = await tokens.search({ query: 'type:token', page: null, size: null });
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ pagination: { page_number: 1, page_size: 20, total_items: 1 } });
    const stringPage = await tokens.search({ query: 'type:token', page: '2' });
    expect(stringPage.statusCode).toBe(400);
    expect(stringPage.json()).toMatchObject({ errors: { page: expect.any(Array) } });
  });

  it('query strings are still coerced', async () => {
    const page = await tokens.list('page=1&size=5');
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ pagination: { page_size: 5 } });
  });
});

describe('application bodies', () => {
  it('null permissions or rules mean "not given"', async () => {
    const created = await call('POST', '/applications', {
      name: 'Nulls',
      type: 'private',
      permissions: ['token:create'],
      rules: null,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ permissions: ['token:create'], rules: [] });
    // Both not given: core's own message, not "permissions[0]: unknown permission ''".
    const neither = await call('POST', '/applications', { name: 'N', type: 'private', permissions: null });
    expect(neither.statusCode).toBe(400);
    expect(neither.json()).toMatchObject({
      errors: { permissions: ['at least one permission or rule is required'] },
    });
    const updated = await call('PUT', `/applications/${created.json().id as string}`, {
      name: 'Nulls 2',
      permissions: ['token:read'],
      rules: null,
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Nulls 2', permissions: ['token:read'], rules: [] });
  });

  it('a rule may carry unknown fields, a null description and empty conditions', async () => {
    const created = await call('POST', '/applications', {
      name: 'Lenient rules',
      type: 'private',
      rules: [
        {
          description: null,
          priority: 1,
          container: '/',
          permissions: ['token:read'],
          transform: 'mask',
          conditions: [],
          unknown_field: 'ignored',
        },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().rules).toEqual([
      { description: '', priority: 1, container: '/', permissions: ['token:read'], transform: 'mask' },
    ]);
  });

  it('refuses a rule with conditions instead of silently widening it', async () => {
    const response = await call('POST', '/applications', {
      name: 'Conditioned',
      type: 'private',
      permissions: ['token:read'],
      rules: [
        {
          priority: 1,
          container: '/',
          permissions: ['token:read'],
          transform: 'reveal',
          conditions: [{ attribute: 'id', operator: 'equals', value: 'x' }],
        },
      ],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: { 'rules[0].conditions': expect.any(Array) } });
  });

  it('GET /applications?type=a&type=b lists both types', async () => {
    for (const [name, type, permission] of [
      ['P', 'private', 'token:read'],
      ['Q', 'public', 'token:create'],
    ]) {
      const made = await call('POST', '/applications', { name, type, permissions: [permission] });
      expect(made.statusCode, made.body).toBe(201);
    }
    const both = await call('GET', '/applications?type=private&type=public');
    expect(both.statusCode).toBe(200);
    const names = (both.json().data as Array<{ name: string }>).map((x) => x.name).sort();
    expect(names).toEqual(['P', 'Q', 'private app']);
    const one = await call('GET', '/applications?type=public');
    expect((one.json().data as Array<{ name: string }>).map((x) => x.name)).toEqual(['Q']);
    const bad = await call('GET', '/applications?type=private&type=nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: { 'type[1]': expect.any(Array) } });
  });
});

describe('every 400 carries an errors map', () => {
  it('malformed JSON', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/applications',
      headers: { 'svc-api-key': a.admin.key, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'MALFORMED_JSON',
      errors: { body: ['is not valid JSON'] },
    });
  });

  it('an undecodable path parameter', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/tokens/%zz',
      headers: { 'svc-api-key': tokens.key },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: { path: expect.any(Array) } });
  });
});

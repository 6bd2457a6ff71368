/**
 * Expiring applications over HTTP: who may create them, what their conditioned rules let them see
 * (one named token, nothing else: elsewhere 404 as for any token outside the caller's reach), and
 * that an expired key is refused at once and swept later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/vault/clock.ts';
import { auditRows } from '../../core/test-support/services-fixture.ts';
import { createTenantFixture, operator, type TenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

const clock = new ManualClock(new Date('2030-01-01T00:00:00.000Z'));
let server: TestServer;
let a: TenantFixture;
/** A private key that may create expiring applications; it reveals everything it reads. */
let creatorKey: string;
let creatorId: string;
/** A private key with the same grants but without the setting. */
let plainPrivateKey: string;
let shownId: string;
let otherId: string;

const RULE = (value: string) => ({
  priority: 1,
  conditions: [{ attribute: 'id', operator: 'equals', value }],
  permissions: ['token:read'],
  transform: 'reveal',
});

beforeAll(async () => {
  server = await createTestServer({ clock });
  a = await createTenantFixture(server.services, 'Expiring');
  const op = operator(a.tenant.id);
  const grants = {
    type: 'private' as const,
    permissions: ['token:read'],
    rules: [
      {
        description: '',
        priority: 1,
        container: '/',
        permissions: ['token:read'],
        transform: 'reveal' as const,
      },
    ],
  };
  const creator = await server.services.applications.create(op, {
    name: 'Backend',
    ...grants,
    can_create_expiring_applications: true,
  });
  creatorKey = creator.key;
  creatorId = creator.id;
  plainPrivateKey = (await server.services.applications.create(op, { name: 'Other backend', ...grants })).key;
  shownId = (await server.services.tokens.create(op, { data: 'shown secret' })).token.id;
  otherId = (await server.services.tokens.create(op, { data: 'other secret' })).token.id;
});
afterAll(async () => server.dispose());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown) =>
  server.app.inject({
    method,
    url,
    headers: { 'svc-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });

const createExpiring = (key: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/applications', key, {
    name: 'Reveal one',
    type: 'expiring',
    rules: [RULE(shownId)],
    ...extra,
  });

describe('creating expiring applications', () => {
  it('a private key with can_create_expiring_applications creates one; it expires in a minute by default', async () => {
    const response = await createExpiring(creatorKey);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      type: 'expiring',
      expires_at: '2030-01-01T00:01:00.000Z',
      can_create_expiring_applications: false,
      created_by: creatorId,
      rules: [
        {
          priority: 1,
          conditions: [{ attribute: 'id', operator: 'equals', value: shownId }],
          transform: 'reveal',
        },
      ],
      key: expect.stringMatching(/^key_/),
    });
    expect(response.json().rules[0]).not.toHaveProperty('container');
    const created = (await auditRows(server.temp.vault, a.tenant.id)).filter(
      (row) => row.entity_id === response.json().id,
    );
    expect(created).toMatchObject([{ operation: 'create', actor_id: creatorId, entity_type: 'application' }]);
  });

  it('403 for a private key without the setting, for a management key, and for other types from the creator', async () => {
    expect((await createExpiring(plainPrivateKey)).statusCode).toBe(403);
    expect((await createExpiring(a.admin.key)).statusCode).toBe(403);
    const notExpiring = await call('POST', '/applications', creatorKey, {
      name: 'Sneaky',
      type: 'private',
      permissions: ['token:read'],
    });
    expect(notExpiring.statusCode).toBe(403);
  });

  it('refuses an expiry in the past or more than a day ahead, and conditions elsewhere', async () => {
    const past = await createExpiring(creatorKey, { expires_at: '2029-12-31T23:59:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({ errors: { expires_at: ['must be in the future'] } });
    const far = await createExpiring(creatorKey, { expires_at: '2030-01-02T00:00:01Z' });
    expect(far.statusCode).toBe(400);
    const day = await createExpiring(creatorKey, { expires_at: '2030-01-02T00:00:00Z' });
    expect(day.statusCode).toBe(201);
    const onPrivate = await call('POST', '/applications', a.admin.key, {
      name: 'Private with conditions',
      type: 'private',
      rules: [{ ...RULE(shownId), container: '/' }],
    });
    expect(onPrivate.statusCode).toBe(400);
    expect(onPrivate.json()).toMatchObject({ errors: { 'rules[0].conditions': expect.any(Array) } });
  });

  it('grants no more than the creator holds (grant ceiling)', async () => {
    const op = operator(a.tenant.id);
    const masked = await server.services.applications.create(op, {
      name: 'Masking backend',
      type: 'private',
      permissions: ['token:read'],
      can_create_expiring_applications: true,
    });
    // Its plain token:read masks: a revealing rule would show more than it sees itself.
    const reveal = await createExpiring(masked.key);
    expect(reveal.statusCode).toBe(403);
    const mask = await call('POST', '/applications', masked.key, {
      name: 'Mask one',
      type: 'expiring',
      rules: [{ ...RULE(shownId), transform: 'mask' }],
    });
    expect(mask.statusCode).toBe(201);
  });

  it('only private applications take can_create_expiring_applications', async () => {
    const onManagement = await call('POST', '/applications', a.admin.key, {
      name: 'Mgmt',
      type: 'management',
      permissions: ['log:read'],
      can_create_expiring_applications: true,
    });
    expect(onManagement.statusCode).toBe(400);
  });
});

describe('what an expiring key can do', () => {
  it('reads only the token its condition names: 404 for others, 403 for other operations; expired → 401', async () => {
    const created = await createExpiring(creatorKey);
    const { key, id } = created.json() as { key: string; id: string };

    const shown = await call('GET', `/tokens/${encodeURIComponent(shownId)}`, key);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ id: shownId, data: 'shown secret' });
    expect((await call('GET', `/tokens/${encodeURIComponent(otherId)}`, key)).statusCode).toBe(404);

    const list = await call('GET', '/tokens', key);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ pagination: { total_items: 1 }, data: [{ id: shownId }] });

    const detokenized = await call('POST', '/detokenize', key, { a: `{{ ${shownId} }}` });
    expect(detokenized.json()).toEqual({ a: 'shown secret' });
    // Like every token outside a caller's reach: the answer to an unknown id.
    expect((await call('POST', '/detokenize', key, { a: `{{ ${otherId} }}` })).statusCode).toBe(400);

    expect((await call('DELETE', `/tokens/${encodeURIComponent(shownId)}`, key)).statusCode).toBe(403);
    expect((await call('POST', '/tokens', key, { data: 'x' })).statusCode).toBe(403);
    expect((await call('POST', '/tokens/search', key, { query: 'id:x' })).statusCode).toBe(403);
    expect((await call('GET', '/applications', key)).statusCode).toBe(403);
    expect(
      (await call('POST', '/applications', key, { name: 'Chain', type: 'expiring', rules: [RULE(shownId)] }))
        .statusCode,
    ).toBe(403);

    clock.advance(60_000);
    expect((await call('GET', `/tokens/${encodeURIComponent(shownId)}`, key)).statusCode).toBe(401);
    expect((await call('GET', '/applications/key', key)).statusCode).toBe(401);

    // The sweep removes the rows of every expired application, with an audit entry each.
    const removed = await server.services.applications.sweepExpired();
    expect(removed).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/applications/${id}`, a.admin.key)).statusCode).toBe(404);
    const entries = (await auditRows(server.temp.vault, a.tenant.id)).filter((row) => row.entity_id === id);
    expect(entries.map((row) => [row.operation, row.message, row.actor_id])).toContainEqual([
      'delete',
      'Application expired',
      null,
    ]);
    // Others keep working.
    expect((await call('GET', `/tokens/${encodeURIComponent(otherId)}`, creatorKey)).statusCode).toBe(200);
  });

  it('a container condition scopes list and get like a container rule, its transform applied', async () => {
    const op = operator(a.tenant.id);
    const card = (
      await server.services.tokens.create(op, { type: 'card', data: { number: '4242424242424242' } })
    ).token;
    const created = await call('POST', '/applications', creatorKey, {
      name: 'Cards masked',
      type: 'expiring',
      rules: [
        {
          priority: 1,
          conditions: [{ attribute: 'container', operator: 'starts_with', value: '/pci/' }],
          permissions: ['token:read'],
          transform: 'mask',
        },
      ],
    });
    expect(created.statusCode).toBe(201);
    const { key } = created.json() as { key: string };
    const list = await call('GET', '/tokens', key);
    expect(list.json()).toMatchObject({ pagination: { total_items: 1 }, data: [{ id: card.id }] });
    expect(list.body).not.toContain('4242424242424242');
    expect((await call('GET', `/tokens/${encodeURIComponent(shownId)}`, key)).statusCode).toBe(404);
  });
});

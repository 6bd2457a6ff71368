import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listQueryFrom } from './tokens-list-query.ts';
import type { TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import type { TokenClient } from '../test-support/tokens.ts';
import { createTokenServer, pageOf, tokenOf } from '../test-support/tokens.ts';

let server: TestServer;
let a: TenantFixture;
let client: TokenClient;

beforeEach(async () => {
  ({ server, a, client } = await createTokenServer());
  for (const [id, metadata] of [
    ['red-xl', { color: 'Red', size: 'XL' }],
    ['red-s', { color: 'red', size: 'S' }],
    ['blue', { color: 'blue' }],
  ] as const) {
    tokenOf(await client.create({ id, data: `value of ${id}`, metadata }), 201);
  }
});

afterEach(async () => {
  await server.dispose();
});

const ids = async (query: string) =>
  pageOf(await client.list(query))
    .data.map((t) => t.id)
    .sort();

describe('GET /tokens?metadata={json}', () => {
  it('filters by a JSON object in one metadata parameter, like the other two forms', async () => {
    const json = (value: unknown) => `metadata=${encodeURIComponent(JSON.stringify(value))}`;
    expect(await ids(json({ color: 'red' }))).toEqual(['red-s', 'red-xl']);
    expect(await ids(json({ color: 'RED', size: 'xl' }))).toEqual(['red-xl']);
    expect(await ids(`${json({ color: 'red' })}&metadata.size=s`)).toEqual(['red-s']);
    expect(await ids(json({}))).toEqual(['blue', 'red-s', 'red-xl']);
  });

  it('refuses a metadata parameter that is not a JSON object of strings', async () => {
    for (const value of ['red', '["a"]', '{"a":1}', '{"a":null}', '{"bad key":"x"}', '{']) {
      const response = await client.list(`metadata=${encodeURIComponent(value)}`);
      expect(response.statusCode, value).toBe(400);
      expect((response.json() as { errors: Record<string, string[]> }).errors, value).toHaveProperty(
        'metadata',
      );
    }
  });

  it('refuses a key named like an object member as it refuses any malformed key, in every form', async () => {
    for (const query of ['metadata.__proto__=x', `metadata=${encodeURIComponent('{"__proto__":"x"}')}`]) {
      const response = await client.list(query);
      expect(response.statusCode, query).toBe(400);
      expect((response.json() as { errors: Record<string, string[]> }).errors, query).toHaveProperty(
        'metadata',
      );
    }
    // A well-formed one is a key like any other: no token has it.
    expect(await ids('metadata.constructor=x')).toEqual([]);
  });

  it('keeps the first value of a key given in several forms', () => {
    expect(
      listQueryFrom([
        ['metadata', '{"color":"red","size":"S"}'],
        ['metadata.color', 'blue'],
      ]),
    ).toEqual({ metadata: { color: 'red', size: 'S' } });
  });
});

describe('GET /tokens?type=<unknown>', () => {
  it('answers an empty page, not 400', async () => {
    const page = pageOf(await client.list('type=network_token'));
    expect(page).toEqual({
      pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 },
      data: [],
    });
    expect(await ids('type=network_token&type=token')).toEqual(['blue', 'red-s', 'red-xl']);
  });
});

describe('size=0', () => {
  it('answers an empty page with the totals on list and search', async () => {
    expect(pageOf(await client.list('size=0'))).toEqual({
      pagination: { total_items: 3, page_number: 1, page_size: 0, total_pages: 0 },
      data: [],
    });
    expect(pageOf(await client.search({ query: 'type:token', size: 0 }))).toEqual({
      pagination: { total_items: 3, page_number: 1, page_size: 0, total_pages: 0 },
      data: [],
    });
  });

  it('is allowed on every offset-paginated list route', async () => {
    const management = a.admin.key;
    for (const url of [
      '/applications?size=0',
      '/logs?size=0',
      '/tenants/self/members?size=0',
      '/tenants/self/invitations?size=0',
    ]) {
      const response = await server.app.inject({
        method: 'GET',
        url,
        headers: { 'svc-api-key': management },
      });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      const body = response.json() as {
        pagination: { page_size: number; total_pages: number };
        data: unknown[];
      };
      expect(body.data, url).toEqual([]);
      expect(body.pagination, url).toMatchObject({ page_size: 0, total_pages: 0 });
    }
  });
});

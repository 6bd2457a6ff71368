import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import {
  createTokenServer,
  pageOf,
  privateKey,
  rule,
  TokenClient,
  tokenOf,
  tokenUrl,
} from '../test-support/tokens.ts';

let server: TestServer;
let a: TenantFixture;
let client: TokenClient;
let parent: string;
let child: string;

const link = (from: string, to: string) => `${tokenUrl(from)}/children/${encodeURIComponent(to)}`;
const children = (id: string, query = '') => `${tokenUrl(id)}/children${query === '' ? '' : `?${query}`}`;

beforeEach(async () => {
  ({ server, a, client } = await createTokenServer());
  parent = tokenOf(await client.create({ id: 'parent token', data: 'p' }), 201).id;
  child = tokenOf(
    await client.create({ id: 'child 1 ä', type: 'card_number', data: '4242424242424242' }),
    201,
  ).id;
});

afterEach(async () => {
  await server.dispose();
});

describe('token associations over HTTP', () => {
  it('associates (204), refuses a repeat (409), lists (paginated, no-store) and dissociates (204)', async () => {
    const created = await client.inject({ method: 'POST', url: link(parent, child) });
    expect(created.statusCode, created.body).toBe(204);
    expect((await client.inject({ method: 'POST', url: link(parent, child) })).statusCode).toBe(409);

    const listed = await client.inject({ method: 'GET', url: children(parent) });
    expect(listed.headers['cache-control']).toBe('no-store');
    const page = pageOf(listed);
    expect(page.pagination).toEqual({ total_items: 1, page_number: 1, page_size: 20, total_pages: 1 });
    expect(page.data[0]).toMatchObject({
      id: child,
      data: 'XXXXXXXXXXXX4242',
      privacy: { classification: 'pci', impact_level: 'high', restriction_policy: 'mask' },
    });

    const removed = await client.inject({ method: 'DELETE', url: link(parent, child) });
    expect(removed.statusCode, removed.body).toBe(204);
    expect(pageOf(await client.inject({ method: 'GET', url: children(parent) })).data).toEqual([]);
    expect((await client.inject({ method: 'DELETE', url: link(parent, child) })).statusCode).toBe(404);
  });

  it('filters children like GET /tokens', async () => {
    const other = tokenOf(
      await client.inject({
        method: 'POST',
        url: children(parent),
        payload: { data: 'other', metadata: { color: 'Red' } },
      }),
      201,
    );
    await client.inject({ method: 'POST', url: link(parent, child) });
    const ids = async (query: string) =>
      pageOf(await client.inject({ method: 'GET', url: children(parent, query) }))
        .data.map((t) => t.id)
        .sort();
    expect(await ids('')).toEqual([child, other.id].sort());
    expect(await ids('type=card_number')).toEqual([child]);
    expect(await ids(`id=${encodeURIComponent(other.id)}`)).toEqual([other.id]);
    expect(await ids('metadata.color=red')).toEqual([other.id]);
    expect(await ids(`metadata=${encodeURIComponent('{"color":"RED"}')}`)).toEqual([other.id]);
    expect(await ids('type=nonexistent')).toEqual([]);
    const sized = pageOf(await client.inject({ method: 'GET', url: children(parent, 'size=0') }));
    expect(sized).toEqual({
      pagination: { total_items: 2, page_number: 1, page_size: 0, total_pages: 0 },
      data: [],
    });
  });

  it('creates a child token (201 with Location), masked like POST /tokens', async () => {
    const response = await client.inject({
      method: 'POST',
      url: children(parent),
      payload: { type: 'card_number', data: '4000056655665556', privacy: { impact_level: 'low' } },
    });
    const token = tokenOf(response, 201);
    expect(response.headers.location).toBe(tokenUrl(token.id));
    expect(token).toMatchObject({ data: 'XXXXXXXXXXXX5556', containers: ['/pci/low/'] });
    expect(response.body).not.toContain('4000056655665556');
    expect(
      pageOf(await client.inject({ method: 'GET', url: children(parent) })).data.map((t) => t.id),
    ).toEqual([token.id]);
  });

  it('answers 404 for unknown tokens, 400 for a token as its own child and for a bad body', async () => {
    for (const [method, url] of [
      ['POST', link('missing', child)],
      ['POST', link(parent, 'missing')],
      ['DELETE', link('missing', child)],
      ['GET', children('missing')],
      ['GET', children('x'.repeat(401))],
    ] as const) {
      const response = await client.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    const missingParent = await client.inject({
      method: 'POST',
      url: children('missing'),
      payload: { data: 'x' },
    });
    expect(missingParent.statusCode).toBe(404);
    const own = await client.inject({ method: 'POST', url: link(parent, parent) });
    expect(own.statusCode).toBe(400);
    expect(own.json()).toHaveProperty(['errors', 'child_id']);
    const bad = await client.inject({
      method: 'POST',
      url: children(parent),
      payload: { type: 'card_number', data: '1' },
    });
    expect(bad.statusCode).toBe(400);
    // Nothing was created along the way.
    expect(pageOf(await client.list()).pagination.total_items).toBe(2);
  });

  it('answers 404 for a token outside the caller’s containers and 403 without the permission there', async () => {
    const app = await privateKey(server.services, a.tenant.id, {
      rules: [rule('/general/', ['token:read', 'token:delete', 'token:create'], 'reveal')],
    });
    const general = new TokenClient(server.app, app.key);
    // The child is in /pci/, which it may not read: the same 404 as a missing token.
    expect((await general.inject({ method: 'POST', url: link(parent, child) })).statusCode).toBe(404);
    await client.inject({ method: 'POST', url: link(parent, child) });
    expect((await general.inject({ method: 'DELETE', url: link(parent, child) })).statusCode).toBe(404);
    // The child it may not read is not listed.
    expect(pageOf(await general.inject({ method: 'GET', url: children(parent) })).data).toEqual([]);
    // It may read both but delete only in /general/: 403 for the child in /pci/.
    const deleter = await privateKey(server.services, a.tenant.id, {
      permissions: ['token:read'],
      rules: [rule('/general/', ['token:delete'], 'reveal')],
    });
    const generalDeleter = new TokenClient(server.app, deleter.key);
    expect((await generalDeleter.inject({ method: 'DELETE', url: link(parent, child) })).statusCode).toBe(
      403,
    );
  });

  it('documents the four routes in /openapi.json', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; 'x-permission'?: string }>>;
    };
    const single = doc.paths['/tokens/{parentId}/children/{childId}'];
    const collection = doc.paths['/tokens/{parentId}/children'];
    expect(Object.keys(single ?? {}).sort()).toEqual(['delete', 'post']);
    expect(
      Object.keys(collection ?? {})
        .filter((m) => m !== 'head')
        .sort(),
    ).toEqual(['get', 'post']);
    expect(single?.post?.responses).toHaveProperty('204');
    expect(single?.post?.['x-permission']).toBe('token:read');
    expect(single?.delete?.['x-permission']).toBe('token:delete');
    expect(collection?.post?.responses).toHaveProperty('201');
  });
});

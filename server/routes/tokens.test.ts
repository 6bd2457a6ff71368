import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listQueryFrom } from './tokens-list-query.ts';
import { createTenantFixture, type TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';
import {
  MERGE_PATCH,
  pageOf,
  privateKey,
  REVEALING_GRANTS,
  rule,
  TokenClient,
  tokenClientIn,
  tokenOf,
  type TokenJson,
} from '../test-support/tokens.ts';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };
const MASKED_CARD = { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 };

let server: TestServer;
let a: TenantFixture;
let b: TenantFixture;
/** Tenant A: every token permission; reads reveal. */
let owner: TokenClient;
/** Tenant B: every token permission; reads reveal. */
let stranger: TokenClient;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  b = await createTenantFixture(server.services, 'Tenant B');
  owner = await tokenClientIn(server, a.tenant.id, REVEALING_GRANTS, 'owner');
  stranger = await tokenClientIn(server, b.tenant.id, REVEALING_GRANTS, 'stranger');
});

afterEach(async () => {
  await server.dispose();
});

describe('token round trip', () => {
  it('creates, reads, lists, updates, searches and deletes a token', async () => {
    // Spaces and non-ASCII characters are allowed in ids; paths carry them URL-encoded.
    const id = 'order 1 ä-x';
    const created = await owner.create({
      id,
      type: 'token',
      data: { secret: 'Sensitive Value' },
      mask: '{{ data.secret | reveal_last: 4 }}',
      metadata: { customer: 'Alice' },
      search_indexes: ['{{ data.secret }}'],
    });
    const token = tokenOf(created, 201);
    expect(created.headers.location).toBe(`/tokens/${encodeURIComponent(id)}`);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(token).toMatchObject({
      id,
      tenant_id: a.tenant.id,
      type: 'token',
      // Create responses are masked.
      data: 'XXXXXXXXXXXalue',
      mask: '{{ data.secret | reveal_last: 4 }}',
      containers: ['/general/high/'],
      metadata: { customer: 'Alice' },
      search_indexes: ['{{ data.secret }}'],
      created_at: expect.any(String),
    });
    expect(token.fingerprint).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
    expect(created.body).not.toContain('Sensitive Value');

    const read = tokenOf(await owner.get(id));
    expect(read.data).toEqual({ secret: 'Sensitive Value' });
    expect(read).toMatchObject({ id, fingerprint: token.fingerprint, created_at: token.created_at });

    for (const query of [
      'metadata.customer=alice',
      'metadata[customer]=ALICE',
      `id=${encodeURIComponent(id)}`,
    ]) {
      const listed = pageOf(await owner.list(query));
      expect(
        listed.data.map((t) => t.id),
        query,
      ).toEqual([id]);
      expect(listed.data[0]?.data).toEqual({ secret: 'Sensitive Value' });
    }
    expect(pageOf(await owner.list('metadata.customer=bob')).data).toEqual([]);

    const updated = tokenOf(
      await owner.update(id, { data: { extra: 'more' }, metadata: { customer: null, tier: 'gold' } }),
    );
    expect(updated).toMatchObject({ id, data: 'XXXXXXXXXXXalue', metadata: { tier: 'gold' } });
    expect(updated.modified_at).toEqual(expect.any(String));
    expect(tokenOf(await owner.get(id)).data).toEqual({ secret: 'Sensitive Value', extra: 'more' });

    const byMetadata = pageOf(await owner.search({ query: 'metadata.tier:gold' }));
    expect(byMetadata.data.map((t) => t.id)).toEqual([id]);
    const byData = pageOf(await owner.search({ query: 'data:"sensitive value"' }));
    expect(byData.data.map((t) => t.id)).toEqual([id]);
    expect(byData.pagination).toEqual({ total_items: 1, page_number: 1, page_size: 20, total_pages: 1 });

    const deleted = await owner.delete(id);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await owner.get(id)).statusCode).toBe(404);
    expect(pageOf(await owner.search({ query: 'metadata.tier:gold' })).data).toEqual([]);
  });

  it('tokenizes any JSON into the same shape, and every id reads back the original value', async () => {
    const payload = {
      card: { type: 'card', data: CARD },
      list: ['a secret', 42, true, { deep: 'deeper secret' }],
      nested: { ssn: { type: 'social_security_number', data: '123-45-6789' } },
    };
    const response = await owner.tokenize(payload);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json() as {
      card: TokenJson;
      list: [string, string, string, { deep: string }];
      nested: { ssn: TokenJson };
    };
    expect(body.card).toMatchObject({ type: 'card', data: MASKED_CARD, containers: ['/pci/high/'] });
    expect(body.nested.ssn).toMatchObject({ type: 'social_security_number', data: 'XXX-XX-6789' });
    expect(body.list).toHaveLength(4);
    expect(response.body).not.toContain('a secret');
    expect(response.body).not.toContain('4242424242424242');

    const originals: Array<[string, unknown]> = [
      [body.list[0], 'a secret'],
      [body.list[1], 42],
      [body.list[2], true],
      [body.list[3].deep, 'deeper secret'],
      [body.card.id, CARD],
      [body.nested.ssn.id, '123-45-6789'],
    ];
    for (const [id, original] of originals) {
      expect(typeof id).toBe('string');
      expect(tokenOf(await owner.get(id)).data).toEqual(original);
    }
  });

  it('tokenizes a bare primitive into a bare id', async () => {
    const response = await owner.tokenize('just one value');
    expect(response.statusCode, response.body).toBe(200);
    const id = response.json() as unknown;
    expect(typeof id).toBe('string');
    expect(tokenOf(await owner.get(id as string)).data).toBe('just one value');
  });

  it('tokenizes all or nothing', async () => {
    const before = pageOf(await owner.list()).pagination.total_items;
    const response = await owner.tokenize({
      good: 'fine value',
      bad: { type: 'card', data: { number: '4242424242424241' } },
    });
    expect(response.statusCode).toBe(400);
    expect(pageOf(await owner.list()).pagination.total_items).toBe(before);
  });

  it('answers a tokenize request without a body with 400', async () => {
    const response = await owner.inject({
      method: 'POST',
      url: '/tokenize',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: { body: ['is required'] } });
  });
});

describe('transforms', () => {
  it('shows the same token revealed, masked and redacted to three applications', async () => {
    const card = tokenOf(await owner.create({ type: 'card', data: CARD }), 201);
    expect(card.data).toEqual(MASKED_CARD);
    const reader = async (transform: 'reveal' | 'mask' | 'redact') => {
      const app = await privateKey(
        server.services,
        a.tenant.id,
        { rules: [rule('/pci/', ['token:read', 'token:search'], transform)] },
        `${transform} reader`,
      );
      return new TokenClient(server.app, app.key);
    };
    const revealer = await reader('reveal');
    const masker = await reader('mask');
    const redactor = await reader('redact');

    expect(tokenOf(await revealer.get(card.id)).data).toEqual(CARD);
    expect(tokenOf(await masker.get(card.id)).data).toEqual(MASKED_CARD);
    const redacted = tokenOf(await redactor.get(card.id));
    expect(redacted).not.toHaveProperty('data');
    expect(redacted).toMatchObject({ id: card.id, type: 'card', fingerprint: card.fingerprint });

    // Lists and searches apply the same transform.
    const listed = async (client: TokenClient) => pageOf(await client.list(`id=${card.id}`)).data[0];
    expect((await listed(revealer))?.data).toEqual(CARD);
    expect((await listed(masker))?.data).toEqual(MASKED_CARD);
    expect(await listed(redactor)).not.toHaveProperty('data');
    const found = async (client: TokenClient) =>
      pageOf(await client.search({ query: `id:"${card.id}"` })).data[0];
    expect((await found(revealer))?.data).toEqual(CARD);
    expect((await found(masker))?.data).toEqual(MASKED_CARD);
    expect(await found(redactor)).not.toHaveProperty('data');
  });

  it('refuses a key with a container-scoped rule outside its container (403; 404 for tokens there)', async () => {
    const outside = tokenOf(await owner.create({ data: 'general data' }), 201);
    const app = await privateKey(server.services, a.tenant.id, {
      rules: [rule('/pci/', ['token:create', 'token:read', 'token:update', 'token:delete'], 'reveal')],
    });
    const pci = new TokenClient(server.app, app.key);

    // Inside /pci/: allowed.
    const inside = tokenOf(await pci.create({ type: 'card', data: CARD }), 201);
    expect(tokenOf(await pci.get(inside.id)).data).toEqual(CARD);

    // Outside: the coarse check passes (it holds the permission somewhere), the container check does not.
    for (const response of [
      await pci.create({ data: 'not in pci' }),
      await pci.create({ type: 'card', data: CARD, containers: ['/general/'] }),
      await pci.update(inside.id, { containers: ['/general/high/'] }),
      await pci.tokenize({ ok: { type: 'card', data: CARD }, outside: 'plain value' }),
    ]) {
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
    // A token outside its containers is answered like a missing id: a 403 would confirm it exists.
    for (const response of [
      await pci.get(outside.id),
      await pci.update(outside.id, { metadata: { a: 'b' } }),
      await pci.delete(outside.id),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', detail: 'No such token.' });
      expect(response.body).not.toContain('/general/');
    }
    // A list shows only what it may read.
    expect(pageOf(await pci.list()).data.map((t) => t.id)).toEqual([inside.id]);
    // Nothing changed outside.
    expect(tokenOf(await owner.get(outside.id)).data).toBe('general data');
  });
});

describe('errors', () => {
  it('answers a taken id with 409', async () => {
    tokenOf(await owner.create({ id: 'taken-id', data: 'first' }), 201);
    const again = await owner.create({ id: 'taken-id', data: 'second' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(tokenOf(await owner.get('taken-id')).data).toBe('first');
  });

  it('takes only application/merge-patch+json on PATCH (415 otherwise)', async () => {
    const token = tokenOf(await owner.create({ data: 'patch me' }), 201);
    for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const response = await owner.update(token.id, { metadata: { a: 'b' } }, contentType);
      expect(response.statusCode, contentType).toBe(415);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        detail: expect.stringContaining(MERGE_PATCH),
      });
    }
    const bare = await owner.inject({ method: 'PATCH', url: `/tokens/${token.id}` });
    expect(bare.statusCode).toBe(415);
    expect(tokenOf(await owner.get(token.id)).metadata).toEqual({});

    const withCharset = await owner.update(
      token.id,
      { metadata: { a: 'b' } },
      `${MERGE_PATCH}; charset=utf-8`,
    );
    expect(tokenOf(withCharset).metadata).toEqual({ a: 'b' });
    // The rest of the API still speaks application/json, and only that.
    const mergePatchPost = await owner.inject({
      method: 'POST',
      url: '/tokens',
      headers: { 'content-type': MERGE_PATCH },
      payload: JSON.stringify({ data: 'x' }),
    });
    expect(mergePatchPost.statusCode).toBe(415);
  });

  it('applies merge-patch semantics: null removes, objects merge, other fields replace', async () => {
    const token = tokenOf(
      await owner.create({ data: { a: 1, b: { c: 2, d: 3 } }, metadata: { keep: 'x', drop: 'y' } }),
      201,
    );
    const patched = await owner.update(token.id, {
      data: { a: null, b: { c: 20 }, e: [1] },
      metadata: { drop: null, add: 'z' },
      containers: ['/general/low/'],
    });
    expect(tokenOf(patched)).toMatchObject({
      metadata: { keep: 'x', add: 'z' },
      containers: ['/general/low/'],
    });
    expect(tokenOf(await owner.get(token.id)).data).toEqual({ b: { c: 20, d: 3 }, e: [1] });
    const malformed = await owner.inject({
      method: 'PATCH',
      url: `/tokens/${token.id}`,
      headers: { 'content-type': MERGE_PATCH },
      payload: '{"data": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'MALFORMED_JSON' });
    const notAnObject = await owner.update(token.id, ['not', 'an', 'object']);
    expect(notAnObject.statusCode).toBe(400);
  });

  it('names the fields of a validation failure', async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 'card', data: { ...CARD, number: '4242424242424241' } }, 'data.number'],
      [{ type: 'card', data: { ...CARD, expiration_month: 13 } }, 'data.expiration_month'],
      [{ type: 'bank', data: { routing_number: '123456789', account_number: '1' } }, 'data.routing_number'],
      [{ type: 'no_such_type', data: 'x' }, 'type'],
      [{ id: 'bad#id', data: 'x' }, 'id'],
      [{ id: 'ab', data: 'x' }, 'id'],
      [{ data: 'x', containers: ['/a/', '/b/'] }, 'containers'],
      [{ data: 'x', containers: ['no-slashes'] }, 'containers[0]'],
      [{ data: 'x', metadata: { k: 'v'.repeat(501) } }, 'metadata.k'],
      [{ data: 'x', fingerprint_expression: '{{ data | no_such_filter }}' }, 'fingerprint_expression'],
      [{ data: 'x', expires_at: '1/1/2001' }, 'expires_at'],
      [{ data: 'x', expires_at: 'next tuesday' }, 'expires_at'],
      [{ data: 'x', search_indexes: Array.from({ length: 11 }, () => '{{ data }}') }, 'search_indexes'],
      [{ type: 'token' }, 'data'],
    ];
    for (const [body, field] of cases) {
      const response = await owner.create(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      const problem = response.json() as { code: string; errors?: Record<string, string[]> };
      expect(problem.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(problem.errors ?? {}), `${JSON.stringify(body)} → ${response.body}`).toContain(
        field,
      );
    }
    // The bad card number is named, never quoted.
    const card = await owner.create({ type: 'card', data: { number: '4242424242424241' } });
    expect(card.body).not.toContain('4242424242424241');
  });

  it('answers unknown and other tenants’ ids with the same 404', async () => {
    const mine = tokenOf(await owner.create({ id: 'tenant-a-token', data: 'a data' }), 201);
    const responses = [
      await stranger.get(mine.id),
      await stranger.get('no-such-token'),
      await owner.get('no-such-token'),
      await stranger.update(mine.id, { metadata: { a: 'b' } }),
      await owner.update('no-such-token', { metadata: { a: 'b' } }),
      await stranger.delete(mine.id),
      await owner.delete('no-such-token'),
      await owner.get('x'.repeat(401)),
    ];
    const [first] = responses;
    for (const response of responses) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(first?.json());
    }
    expect(first?.json()).toMatchObject({ code: 'NOT_FOUND', detail: 'No such token.' });
    // Tenant B's lists and searches do not see it either.
    expect(pageOf(await stranger.list(`id=${mine.id}`)).data).toEqual([]);
    expect(pageOf(await stranger.search({ query: `id:${mine.id}` })).data).toEqual([]);
    // And it is still there for A.
    expect(tokenOf(await owner.get(mine.id)).data).toBe('a data');
  });

  it('answers a search syntax error with 400 naming the position', async () => {
    const response = await owner.search({ query: 'type:card AND (metadata.a:b' });
    expect(response.statusCode).toBe(400);
    const problem = response.json() as { detail: string; errors: Record<string, string[]> };
    expect(problem.detail).toMatch(/position \d+/);
    expect(problem.errors.query?.[0]).toMatch(/position \d+/);
    for (const body of [{ query: '' }, { query: 'x'.repeat(201) }, {}, { query: 'nofield' }]) {
      const bad = await owner.search(body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys((bad.json() as { errors: object }).errors)).toContain('query');
    }
  });
});

describe('GET /tokens filters and pages', () => {
  beforeEach(async () => {
    for (const [id, metadata, type] of [
      ['red-xl', { color: 'Red', size: 'XL' }, 'token'],
      ['red-s', { color: 'red', size: 'S' }, 'token'],
      ['blue', { color: 'blue' }, 'token'],
      ['ssn-1', { color: 'red' }, 'social_security_number'],
    ] as const) {
      const data = type === 'token' ? `value of ${id}` : '123-45-6789';
      tokenOf(await owner.create({ id, type, data, metadata }), 201);
    }
  });

  const ids = async (query: string) =>
    pageOf(await owner.list(query))
      .data.map((t) => t.id)
      .sort();

  it('filters by metadata in both forms, case-insensitively, ANDed', async () => {
    expect(await ids('metadata.color=RED')).toEqual(['red-s', 'red-xl', 'ssn-1']);
    expect(await ids('metadata[color]=red')).toEqual(['red-s', 'red-xl', 'ssn-1']);
    expect(await ids('metadata[color]=red&metadata.size=xl')).toEqual(['red-xl']);
    expect(await ids('metadata.color=red&metadata[size]=nope')).toEqual([]);
    // A repeated key counts once, with its first value.
    expect(await ids('metadata.color=blue&metadata[color]=red')).toEqual(['blue']);
    // Exact match, not a prefix.
    expect(await ids('metadata.color=re')).toEqual([]);
  });

  it('filters by repeated id and type', async () => {
    expect(await ids('id=blue&id=red-s&id=missing')).toEqual(['blue', 'red-s']);
    expect(await ids('type=social_security_number')).toEqual(['ssn-1']);
    expect(await ids('type=social_security_number&type=token')).toHaveLength(4);
    expect(await ids('type=card')).toEqual([]);
    expect(await ids('type=token&metadata.color=red')).toEqual(['red-s', 'red-xl']);
  });

  it('pages, and refuses sizes and pages out of bounds', async () => {
    const first = pageOf(await owner.list('size=3'));
    expect(first.pagination).toEqual({ total_items: 4, page_number: 1, page_size: 3, total_pages: 2 });
    expect(first.data).toHaveLength(3);
    const second = pageOf(await owner.list('size=3&page=2'));
    expect(second.data).toHaveLength(1);
    expect([...first.data, ...second.data].map((t) => t.id).sort()).toEqual([
      'blue',
      'red-s',
      'red-xl',
      'ssn-1',
    ]);
    expect(pageOf(await owner.list()).pagination.page_size).toBe(20);
    expect(pageOf(await owner.list('size=100')).data).toHaveLength(4);

    for (const [query, field] of [
      ['size=101', 'size'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['size=abc', 'size'],
    ] as const) {
      const response = await owner.list(query);
      expect(response.statusCode, query).toBe(400);
      expect((response.json() as { errors: Record<string, string[]> }).errors, query).toHaveProperty(field);
    }
    for (const [body, field] of [
      [{ query: 'type:token', size: 101 }, 'size'],
      [{ query: 'type:token', page: 0 }, 'page'],
    ] as const) {
      const response = await owner.search(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect((response.json() as { errors: Record<string, string[]> }).errors).toHaveProperty(field);
    }
    const searched = pageOf(await owner.search({ query: 'type:token', size: 2, page: 2 }));
    expect(searched.pagination).toEqual({ total_items: 3, page_number: 2, page_size: 2, total_pages: 2 });
    expect(searched.data).toHaveLength(1);
  });

  it('refuses a metadata filter without a key', async () => {
    for (const query of ['metadata=red', 'metadata.=red', 'metadata[]=red']) {
      const response = await owner.list(query);
      expect(response.statusCode, query).toBe(400);
      expect((response.json() as { errors: Record<string, string[]> }).errors).toHaveProperty('metadata');
    }
  });
});

describe('deduplication', () => {
  it('returns the existing token with 200 instead of creating a duplicate', async () => {
    const first = await owner.create({ data: 'same value', deduplicate_token: true });
    const original = tokenOf(first, 201);
    const again = await owner.create({ data: 'same value', deduplicate_token: true });
    expect(again.statusCode).toBe(200);
    expect(again.headers.location).toBeUndefined();
    expect(tokenOf(again).id).toBe(original.id);
    // Without the flag (and the tenant setting off) a second token is created.
    expect(tokenOf(await owner.create({ data: 'same value' }), 201).id).not.toBe(original.id);
  });

  it('shows only identifying fields of a duplicate the caller may not read', async () => {
    const original = tokenOf(await owner.create({ data: 'shared value', metadata: { m: 'v' } }), 201);
    const writerApp = await privateKey(server.services, a.tenant.id, { permissions: ['token:create'] });
    const writer = new TokenClient(server.app, writerApp.key);
    const duplicate = await writer.create({ data: 'shared value', deduplicate_token: true });
    expect(duplicate.statusCode).toBe(200);
    const shown = tokenOf(duplicate);
    expect(shown).toMatchObject({
      id: original.id,
      tenant_id: a.tenant.id,
      type: 'token',
      containers: ['/general/high/'],
    });
    expect(shown.fingerprint).toBe(original.fingerprint);
    for (const field of ['data', 'metadata', 'mask', 'search_indexes', 'fingerprint_expression']) {
      expect(shown).not.toHaveProperty(field);
    }
  });
});

describe('listQueryFrom', () => {
  it('gathers both metadata forms, repeated ids and types, and keeps the first of a repeated key', () => {
    expect(
      listQueryFrom([
        ['id', 'a'],
        ['metadata.Color', 'Red'],
        ['id', 'b'],
        ['type', 'card'],
        ['metadata[a.b]', 'c'],
        ['metadata[Color]', 'ignored'],
        ['page', '2'],
        ['size', '5'],
        ['unknown', 'x'],
      ]),
    ).toEqual({
      id: ['a', 'b'],
      type: ['card'],
      metadata: { Color: 'Red', 'a.b': 'c' },
      page: '2',
      size: '5',
    });
    expect(listQueryFrom([])).toEqual({});
    // A repeated page is left for the schema to refuse.
    expect(
      listQueryFrom([
        ['page', '1'],
        ['page', '2'],
      ]),
    ).toEqual({ page: ['1', '2'] });
  });

  it('refuses metadata without a key, or with an over-long one', () => {
    for (const name of ['metadata', 'metadata.', 'metadata[]', 'metadata[x', `metadata.${'k'.repeat(201)}`]) {
      expect(() => listQueryFrom([[name, 'v']]), name).toThrow(/validation/i);
    }
  });
});

describe('/openapi.json', () => {
  interface Operation {
    requestBody?: { content: Record<string, unknown> };
    parameters?: Array<{ name: string; in: string; style?: string; explode?: boolean }>;
    responses: Record<string, unknown>;
    'x-permission'?: string;
  }

  it('documents every token route with its permission, body types and statuses', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/openapi.json' });
    const paths = (response.json() as { paths: Record<string, Record<string, Operation>> }).paths;
    const operation = (path: string, method: string): Operation => {
      const found = paths[path]?.[method];
      if (found === undefined) throw new Error(`${method} ${path} is not documented`);
      return found;
    };
    expect(operation('/tokenize', 'post')['x-permission']).toBe('token:create');
    expect(Object.keys(operation('/tokenize', 'post').responses)).toContain('200');
    expect(Object.keys(operation('/tokens', 'post').responses)).toEqual(
      expect.arrayContaining(['200', '201']),
    );
    expect(operation('/tokens', 'get')['x-permission']).toBe('token:read');
    expect(operation('/tokens/search', 'post')['x-permission']).toBe('token:search');
    expect(operation('/tokens/{id}', 'delete')['x-permission']).toBe('token:delete');
    expect(Object.keys(operation('/tokens/{id}', 'delete').responses)).toContain('204');

    const patch = operation('/tokens/{id}', 'patch');
    expect(patch['x-permission']).toBe('token:update');
    expect(Object.keys(patch.requestBody?.content ?? {})).toEqual([MERGE_PATCH]);

    const metadata = operation('/tokens', 'get').parameters?.find((p) => p.name === 'metadata');
    expect(metadata).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
    const names = operation('/tokens', 'get').parameters?.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['id', 'type', 'metadata', 'page', 'size']));
  });
});

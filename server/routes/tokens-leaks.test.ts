/**
 * The attacks on token data that a caller without plaintext access could once run, replayed over
 * HTTP: each must teach the attacker nothing. See docs/security.md, "Token data leaks".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationWithKey } from '../../core/services-contract.ts';
import { luhnValid } from '../../core/tokens/luhn.ts';
import { operator, type TenantFixture } from '../test-support/identity.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';
import type { TestServer } from '../test-support/test-server.ts';
import type { privateKey } from '../test-support/tokens.ts';
import {
  pageOf,
  REVEALING_GRANTS,
  rule,
  TokenClient,
  tokenClientIn,
  tokenOf,
  type TokenJson,
} from '../test-support/tokens.ts';

const CARD_NUMBER = '4111111111111111';
const SSN = '078-05-1120';

let server: TestServer;
let a: TenantFixture;
/** The tenant's backend: every token permission, reads and searches reveal. */
let backend: TokenClient;
/** The attacker's public key: token:create and token:update under a mask rule (a browser key). */
let attacker: TokenClient;

function publicKey(tenantId: string): Promise<ApplicationWithKey> {
  return server.services.applications.create(operator(tenantId), {
    name: 'browser',
    type: 'public',
    permissions: [],
    rules: [rule('/', ['token:create', 'token:update'], 'mask')],
  });
}

const client = (grants: Parameters<typeof privateKey>[2], name: string): Promise<TokenClient> =>
  tokenClientIn(server, a.tenant.id, grants, name);

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  backend = await tokenClientIn(server, a.tenant.id, REVEALING_GRANTS, 'backend');
  attacker = new TokenClient(server.app, (await publicKey(a.tenant.id)).key);
});

afterEach(async () => {
  await server.dispose();
});

/** What the backend sees of a token: the truth to compare the attacker's view with. */
async function stored(id: string): Promise<TokenJson> {
  return tokenOf(await backend.get(id));
}

describe('update: changing how data is derived needs plaintext access', () => {
  it('the fingerprint oracle (a slice per PATCH, compared with fingerprints of known digits) learns nothing', async () => {
    const target = tokenOf(await backend.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    // The attacker's references: for each digit d, the fingerprint of card_number input "d".
    const references = new Map<string, string>();
    for (const digit of '0123456789') {
      const card = `${digit}000000000000000`.slice(0, 15);
      const luhnOk = [...'0123456789'].map((check) => card + check).find((candidate) => luhnValid(candidate));
      const made = await attacker.create({
        type: 'card_number',
        data: luhnOk,
        fingerprint_expression: '{{ data | slice: 0, 1 }}',
      });
      references.set(tokenOf(made, 201).fingerprint ?? '', digit);
    }
    let recovered = '';
    const statuses = new Set<number>();
    for (let i = 0; i < CARD_NUMBER.length; i += 1) {
      const response = await attacker.update(target.id, {
        fingerprint_expression: `{{ data | slice: ${i}, 1 }}`,
      });
      statuses.add(response.statusCode);
      const fingerprint = (response.json() as { fingerprint?: string }).fingerprint;
      recovered += references.get(fingerprint ?? '') ?? '';
    }
    // Unfixed, this recovered the whole number in 26 requests.
    expect(recovered).toBe('');
    expect([...statuses]).toEqual([403]);
    expect(await stored(target.id)).toMatchObject({
      fingerprint: target.fingerprint,
      fingerprint_expression: '{{ data }}',
    });
  });

  it('a mask of {{ data }} is refused, and the response carries no data', async () => {
    const target = tokenOf(await backend.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    const ssn = tokenOf(await backend.create({ type: 'social_security_number', data: SSN }), 201);
    for (const [id, patch] of [
      [target.id, { mask: '{{ data }}' }],
      [target.id, { mask: '{{ data }}', metadata: { note: 'x' } }],
      [ssn.id, { mask: { all: '{{ data }}' } }],
      [ssn.id, { search_indexes: ['{{ data | slice: 0, 3 }}'] }],
    ] as const) {
      const response = await attacker.update(id, patch);
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
      expect(response.body).not.toContain(CARD_NUMBER);
      expect(response.body).not.toContain(SSN);
    }
    expect(await stored(target.id)).toMatchObject({ mask: '{{ data | reveal_last: 4 }}', modified_at: null });
    expect(await stored(ssn.id)).toMatchObject({ mask: '{{ data | reveal_last: 4 }}', modified_at: null });
  });

  it('a token cannot be moved to where a broader reader sees it', async () => {
    const target = tokenOf(await backend.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    const response = await attacker.update(target.id, { containers: ['/general/low/'] });
    expect(response.statusCode, response.body).toBe(403);
    expect((await stored(target.id)).containers).toEqual(['/pci/high/']);
  });

  it('an update response shows no more than the read transform (none for a public key)', async () => {
    // The attacker plants a revealing mask on a token of its own; the backend later stores a secret in it.
    const planted = tokenOf(await attacker.create({ data: 'harmless', mask: '{{ data }}' }), 201);
    expect(planted.data).toBe('harmless');
    tokenOf(await backend.update(planted.id, { data: 'the backend secret' }));
    const response = await attacker.update(planted.id, { metadata: { poke: '1' } });
    const seen = tokenOf(response);
    expect(seen).not.toHaveProperty('data');
    expect(response.body).not.toContain('the backend secret');
  });

  it('echoing the stored values back needs nothing; a revealing key changes everything as before', async () => {
    const target = tokenOf(await backend.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    const echoed = await attacker.update(target.id, {
      mask: target.mask,
      fingerprint_expression: target.fingerprint_expression,
      search_indexes: target.search_indexes,
      containers: target.containers,
      metadata: { seen: 'yes' },
    });
    expect(echoed.statusCode, echoed.body).toBe(200);
    const changed = tokenOf(
      await backend.update(target.id, {
        mask: '{{ data | reveal_last: 2 }}',
        fingerprint_expression: '{{ data | slice: 0, 6 }}',
        containers: ['/pci/low/'],
      }),
    );
    expect(changed).toMatchObject({ containers: ['/pci/low/'], mask: '{{ data | reveal_last: 2 }}' });
    expect(changed.fingerprint).not.toBe(target.fingerprint);
  });
});

describe('search: data: terms need reveal', () => {
  it('an OR-chain of last-four guesses from a redacting searcher is refused', async () => {
    tokenOf(await backend.create({ type: 'social_security_number', data: SSN }), 201);
    const redactor = await client({ rules: [rule('/', ['token:search'], 'redact')] }, 'redactor');
    const mixed = await client(
      {
        rules: [rule('/pii/high/', ['token:search'], 'reveal', 1), rule('/', ['token:search'], 'mask', 2)],
      },
      'mixed',
    );
    for (const searcher of [redactor, mixed]) {
      let learned = 0;
      for (let block = 1000; block < 1030; block += 3) {
        const query = [0, 1, 2].map((k) => `data:${block + k}`).join(' OR ');
        const response = await searcher.search({ query });
        expect(response.statusCode, response.body).toBe(403);
        learned += (response.json() as { pagination?: { total_items: number } }).pagination?.total_items ?? 0;
      }
      expect(learned).toBe(0);
      // Other fields stay searchable.
      expect(pageOf(await searcher.search({ query: 'type:social_security_number' })).data).toHaveLength(1);
    }
  });

  it('caps data: terms per query, also for a revealing searcher', async () => {
    tokenOf(await backend.create({ type: 'social_security_number', data: SSN }), 201);
    expect(pageOf(await backend.search({ query: 'data:1120 OR data:1121 OR data:1122' })).data).toHaveLength(
      1,
    );
    const many = await backend.search({ query: 'data:1120 OR data:1121 OR data:1122 OR data:1123' });
    expect(many.statusCode).toBe(400);
    expect(many.json()).toMatchObject({ errors: { query: [expect.stringContaining('at most 3 data:')] } });
  });
});

describe('ids that are the data', () => {
  it('refuses an alias expression that copies the data, names nothing, creates nothing', async () => {
    for (const id of ['{{ data }}', '{{ data | slice: 0, 8 }}-x', "{{ data | remove: '-' }}"]) {
      const response = await attacker.create({ type: 'card_number', data: CARD_NUMBER, id });
      expect(response.statusCode, `${id}: ${response.body}`).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).not.toContain(CARD_NUMBER);
      expect(response.body).not.toContain('41111111');
    }
    expect(pageOf(await backend.list()).data).toEqual([]);
  });

  it('accepts randomising aliases that keep at most the last four', async () => {
    const made = tokenOf(
      await attacker.create({
        type: 'social_security_number',
        data: SSN,
        id: '{{ data | alias_preserve_format: 0, 4 }}',
      }),
      201,
    );
    expect(made.id).toMatch(/^\d{3}-\d{2}-1120$/);
    expect(made.id).not.toBe(SSN);
  });
});

describe('existence oracles', () => {
  it('a token outside the caller’s containers is a 404 like a missing id', async () => {
    const pci = tokenOf(await backend.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    const general = await client({ rules: [rule('/general/', ['token:read'], 'reveal')] }, 'general');
    const existing = await general.get(pci.id);
    const missing = await general.get('no-such-token');
    expect(existing.statusCode).toBe(404);
    expect(existing.body).toBe(missing.body);
  });

  it('public keys do not deduplicate: the flag is a 403, the tenant setting does not apply', async () => {
    const original = tokenOf(await backend.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    const asked = await attacker.create({
      type: 'card_number',
      data: CARD_NUMBER,
      deduplicate_token: true,
    });
    expect(asked.statusCode, asked.body).toBe(403);
    expect(asked.body).not.toContain(original.id);
    await server.services.tenants.update(operator(a.tenant.id), {
      name: 'Tenant A',
      settings: { deduplicate_tokens: 'true' },
    });
    const fresh = tokenOf(await attacker.create({ type: 'card_number', data: CARD_NUMBER }), 201);
    expect(fresh.id).not.toBe(original.id);
    const guess = await attacker.update(fresh.id, { data: '4242424242424242', deduplicate_token: true });
    expect(guess.statusCode).toBe(403);
  });
});

describe('duplicates answered to a caller who cannot read them', () => {
  it('a create shows exactly id, type, tenant_id, fingerprint and containers', async () => {
    const original = tokenOf(
      await backend.create({ type: 'card_number', data: CARD_NUMBER, metadata: { customer: 'c1' } }),
      201,
    );
    const writer = await client({ permissions: ['token:create'] }, 'writer');
    const dup = tokenOf(
      await writer.create({ type: 'card_number', data: CARD_NUMBER, deduplicate_token: true }),
      200,
    );
    expect(Object.keys(dup).sort()).toEqual(['containers', 'fingerprint', 'id', 'tenant_id', 'type']);
    expect(dup).toMatchObject({ id: original.id, fingerprint: original.fingerprint });
  });

  it('an update hides data, metadata, fingerprint_expression, search_indexes and mask only', async () => {
    const original = tokenOf(
      await backend.create({ type: 'card_number', data: CARD_NUMBER, metadata: { customer: 'c1' } }),
      201,
    );
    const editor = await client(
      { rules: [rule('/general/', ['token:create', 'token:update', 'token:read'], 'mask')] },
      'editor',
    );
    const mine = tokenOf(
      await editor.create({ type: 'card_number', data: '4242424242424242', containers: ['/general/'] }),
      201,
    );
    const dup = tokenOf(await editor.update(mine.id, { data: CARD_NUMBER, deduplicate_token: true }));
    expect(dup.id).toBe(original.id);
    for (const hidden of ['data', 'metadata', 'fingerprint_expression', 'search_indexes', 'mask']) {
      expect(dup).not.toHaveProperty(hidden);
    }
    expect(dup).toMatchObject({
      type: 'card_number',
      tenant_id: a.tenant.id,
      fingerprint: original.fingerprint,
      containers: ['/pci/high/'],
      created_at: original.created_at,
      expires_at: null,
    });
  });
});

describe('masks and search indexes on every type', () => {
  it('accepts a custom mask on create and (with plaintext access) on update, for every type', async () => {
    const card = tokenOf(
      await attacker.create({
        type: 'card',
        data: { number: CARD_NUMBER, expiration_month: 1, expiration_year: 2030 },
        mask: { number: '{{ data.number | reveal_last: 2 }}' },
      }),
      201,
    );
    expect(card.data).toEqual({ number: 'XXXXXXXXXXXXXX11' });
    const ssn = tokenOf(await backend.create({ type: 'social_security_number', data: SSN }), 201);
    const masked = tokenOf(await backend.update(ssn.id, { mask: 'hidden' }));
    expect(masked.mask).toBe('hidden');
    expect((await attacker.update(ssn.id, { mask: '{{ data }}' })).statusCode).toBe(403);
  });

  it('accepts search_indexes: [] on types without search indexes', async () => {
    const card = tokenOf(
      await attacker.create({ type: 'card_number', data: CARD_NUMBER, search_indexes: [] }),
      201,
    );
    expect(card.search_indexes).toEqual([]);
    expect((await attacker.update(card.id, { search_indexes: [] })).statusCode).toBe(200);
    const refused = await attacker.create({
      type: 'card_number',
      data: CARD_NUMBER,
      search_indexes: ['{{ data }}'],
    });
    expect(refused.statusCode).toBe(400);
  });
});

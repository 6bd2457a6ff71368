import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TenantKeys } from '../crypto/tenant-keys.ts';
import { isVaultError } from '../errors/catalogue.ts';
import { auditRows, codeOf, fieldErrorsOf } from '../test-support/services-fixture.ts';
import { appIn, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

describe('token search', () => {
  let f: TokenFixture;
  let ids: Record<string, string>;
  let appId: string;

  beforeEach(async () => {
    f = await openTokenFixture();
    appId = f.app.kind === 'application' ? f.app.applicationId : '';
    ids = {};
    const make = async (
      name: string,
      request: Parameters<typeof f.services.tokens.create>[1],
      by = f.app,
    ) => {
      ids[name] = (await f.services.tokens.create(by, request)).token.id;
      f.clock.advance(24 * 3_600_000); // one token per day from 2026-01-01
    };
    await make('ssn', {
      type: 'social_security_number',
      data: '123-45-6789',
      metadata: { customer: 'Alice' },
    });
    await make('ein', { type: 'employer_id_number', data: '98-7654321', metadata: { customer: 'bob' } });
    await make('email', {
      id: 'email-token',
      data: 'Ada@Example.com',
      search_indexes: ['{{ data }}', "{{ data | split: '@' | last }}"],
      containers: ['/pii/low/'],
      metadata: { 'customer.tier': 'Gold' },
    });
    await make('card', { type: 'card_number', data: '4242424242424242' }, f.operator);
    await make('plain', { data: 'two words', search_indexes: ['{{ data }}'], containers: ['/general/low/'] });
    await f.services.tokens.update(f.app, ids.plain!, { metadata: { touched: 'yes' } });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    return f.close();
  });

  const search = async (query: string, principal = f.app) =>
    (await f.services.tokens.search(principal, { query, page: 1, size: 100 })).items.map((t) => t.id).sort();
  const names = (...keys: string[]) => keys.map((k) => ids[k]).sort();

  it.each([
    ['data:123-45-6789', ['ssn']],
    ['data:123456789', ['ssn']],
    ['data:6789', ['ssn']],
    ['data:4321', ['ein']],
    ['data:ada@example.com', ['email']],
    ['data:EXAMPLE.COM', ['email']],
    ['data:"two words"', ['plain']],
    ['data:two', []],
    ['data:4242424242424242', []],
    ['id:email-token', ['email']],
    ['type:card_number', ['card']],
    ['type:social_security_number OR type:employer_id_number', ['ssn', 'ein']],
    ['container:"/pii/high/"', ['ssn', 'ein']],
    ['container:"/pii/*"', ['ssn', 'ein', 'email']],
    ['container:"/pii/"', []],
    ['container:"/*"', ['ssn', 'ein', 'email', 'card', 'plain']],
    ['metadata.customer:ALICE', ['ssn']],
    ['metadata.customer.tier:gold', ['email']],
    ['metadata.customer:ali', []],
    ['created_at:2026-01-02', ['ein']],
    ['created_at:[2026-01-02 TO 2026-01-03]', ['ein', 'email']],
    ['created_at:{2026-01-02T00:00:00Z TO 2026-01-04T00:00:00Z}', ['email']],
    ['created_at:[2026-01-04 TO *]', ['card', 'plain']],
    ['created_at:[* TO 2026-01-01T00:00:00Z]', ['ssn']],
    ['modified_at:[2026-01-01 TO *]', ['plain']],
    ['NOT modified_at:[2026-01-01 TO *]', ['ssn', 'ein', 'email', 'card']],
    ['type:token AND NOT id:email-token', ['plain']],
    ['type:token -id:email-token', ['plain']],
    ['(type:card_number OR metadata.customer:bob) AND container:"/pci/*"', ['card']],
    ['data:6789 OR data:4321', ['ssn', 'ein']],
  ])('%s', async (query, expected) => {
    expect(await search(query, f.revealer)).toEqual(names(...expected));
  });

  it('matches fingerprint, created_by and modified_by exactly', async () => {
    const card = await f.services.tokens.get(f.operator, ids.card!);
    expect(await search(`fingerprint:${card.fingerprint}`)).toEqual(names('card'));
    expect(await search('created_by:OPERATOR_NONE', f.operator)).toEqual([]);
    expect(await search(`created_by:${appId}`)).toEqual(names('ssn', 'ein', 'email', 'plain'));
    expect(await search(`modified_by:${appId}`)).toEqual(names('plain'));
    expect(await search(`NOT created_by:${appId}`)).toEqual(names('card'));
  });

  it("searches by another actor's id only with application:read, as actor ids are shown", async () => {
    expect(await codeOf(search(`created_by:${appId}`, f.revealer))).toBe('FORBIDDEN');
    expect(await codeOf(search(`type:token OR NOT modified_by:${appId}`, f.revealer))).toBe('FORBIDDEN');
    const own = f.revealer.kind === 'application' ? f.revealer.applicationId : '';
    expect(await search(`created_by:${own}`, f.revealer)).toEqual([]);
    const shown = await f.services.tokens.search(f.revealer, { query: 'type:token', page: 1, size: 100 });
    expect(shown.items.map((t) => t.created_by)).toEqual(shown.items.map(() => null));
    const seen = await f.services.tokens.search(f.app, { query: 'type:token', page: 1, size: 100 });
    expect(new Set(seen.items.map((t) => t.created_by))).toEqual(new Set([appId]));
  });

  it('shows results through the token:search transform, only in containers granted for search', async () => {
    const searcher = appIn(f.tenantId, {
      rules: [
        rule(1, '/pii/high/', ['token:search'], 'reveal'),
        rule(2, '/pii/', ['token:search'], 'mask'),
        rule(3, '/general/', ['token:read'], 'reveal'),
      ],
    });
    const page = await f.services.tokens.search(searcher, { query: 'container:"/*"', page: 1, size: 2 });
    expect(page.total).toBe(3);
    expect(page.items.map((t) => [t.id, t.data])).toEqual([
      [ids.email, undefined],
      [ids.ein, '98-7654321'],
    ]);
    const next = await f.services.tokens.search(searcher, { query: 'container:"/*"', page: 2, size: 2 });
    expect(next.items.map((t) => t.id)).toEqual([ids.ssn]);
    const plain = appIn(f.tenantId, { permissions: ['token:search'] });
    const masked = await f.services.tokens.search(plain, {
      query: 'type:social_security_number',
      page: 1,
      size: 5,
    });
    expect(masked.items[0]?.data).toBe('XXX-XX-6789');
    expect(
      await codeOf(
        f.services.tokens.search(appIn(f.tenantId, { permissions: ['token:read'] }), {
          query: 'id:x',
          page: 1,
          size: 1,
        }),
      ),
    ).toBe('FORBIDDEN');
  });

  it('matches data through blind indexes without decrypting any token', async () => {
    const forTerm = vi.spyOn(TenantKeys.prototype, 'forTerm');
    // A page past the matches: counted in SQL, nothing shown, so nothing to decrypt.
    const page = await f.services.tokens.search(f.revealer, {
      query: 'data:6789 OR data:example.com OR data:"two words"',
      page: 2,
      size: 10,
    });
    expect(page.total).toBe(3);
    expect(page.items).toEqual([]);
    expect(forTerm.mock.calls.filter((call) => call[2] === 'data')).toEqual([]);
    // The index holds keyed hashes only.
    const digests = await f.vault.db.selectFrom('token_search_indexes').select('digest').execute();
    for (const { digest } of digests) {
      expect(digest).toHaveLength(32);
      expect(Buffer.from(digest).toString('latin1')).not.toContain('6789');
    }
  });

  it('writes one audit entry per search naming the tokens it returned', async () => {
    const before = (await auditRows(f.vault, f.tenantId)).length;
    const page = await f.services.tokens.search(f.revealer, { query: 'container:"/*"', page: 1, size: 100 });
    expect(page.items.length).toBeGreaterThan(1);
    expect((await auditRows(f.vault, f.tenantId)).slice(before)).toEqual([
      expect.objectContaining({
        entity_type: 'token',
        entity_id: 'search',
        entity_ids: JSON.stringify(page.items.map((t) => t.id)),
        operation: 'read',
        message: 'Tokens searched',
        revealed: 1,
      }),
    ]);
  });

  it('keeps tenants apart: the same value in another tenant is not found', async () => {
    const other = appIn(f.otherTenantId, {
      permissions: ['token:create'],
      rules: [rule(1, '/', ['token:search'], 'reveal')],
    });
    await f.services.tokens.create(other, { type: 'social_security_number', data: '123-45-6789' });
    expect(await search('data:6789', f.revealer)).toEqual(names('ssn'));
    expect((await f.services.tokens.search(other, { query: 'data:6789', page: 1, size: 10 })).total).toBe(1);
    expect(await search(`id:${ids.ssn}`, other)).toEqual([]);
  });

  it('reports parser errors as 400 naming the position; checks page and size', async () => {
    let error: unknown;
    try {
      await f.services.tokens.search(f.app, { query: 'type:card AND (', page: 1, size: 10 });
    } catch (e) {
      error = e;
    }
    expect(isVaultError(error, 'VALIDATION_FAILED')).toBe(true);
    expect(isVaultError(error) && error.errors).toEqual({ query: ['syntax error at position 15'] });
    expect(
      await fieldErrorsOf(f.services.tokens.search(f.app, { query: 'colour:red', page: 1, size: 10 })),
    ).toHaveProperty('query');
    expect(
      Object.keys(
        await fieldErrorsOf(f.services.tokens.search(f.app, { query: 'id:x', page: 0, size: 101 })),
      ),
    ).toEqual(['page', 'size']);
    expect(
      await fieldErrorsOf(f.services.tokens.search(f.app, { query: undefined as never, page: 1, size: 1 })),
    ).toHaveProperty('query');
  });
});

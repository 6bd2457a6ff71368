import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { auditRows, codeOf, fieldErrorsOf } from '../test-support/services-fixture.ts';
import { appIn, countRows, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';
import { monthlyActiveTokens } from './usage.ts';

describe('reading tokens', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  describe('transforms: the same token through reveal, mask and redact', () => {
    const reader = (transform: 'reveal' | 'mask' | 'redact'): Principal =>
      appIn(f.tenantId, { rules: [rule(1, '/pci/', ['token:read'], transform)] });

    it.each([
      ['reveal', { number: '4242424242424242', expiration_month: 4, expiration_year: 2031, cvc: '321' }],
      ['mask', { number: 'XXXXXXXXXXXX4242', expiration_month: 4, expiration_year: 2031 }],
      ['redact', undefined],
    ] as const)('%s', async (transform, expected) => {
      const data = { number: '4242424242424242', expiration_month: 4, expiration_year: 2031, cvc: '321' };
      const { token } = await f.services.tokens.create(f.app, { type: 'card', data });
      const read = await f.services.tokens.get(reader(transform), token.id);
      if (expected === undefined) expect(read).not.toHaveProperty('data');
      else expect(read.data).toEqual(expected);
      expect(read).toMatchObject({ id: token.id, type: 'card', containers: ['/pci/high/'] });
      const listed = await f.services.tokens.list(reader(transform), {}, { page: 1, size: 10 });
      expect(listed.items[0]?.data).toEqual(expected);
      // Both reads say whether the data was seen unmasked; the list is one entry naming its token.
      const revealed = transform === 'reveal' ? 1 : 0;
      expect((await auditRows(f.vault, f.tenantId)).slice(-2)).toEqual([
        expect.objectContaining({ entity_type: 'card', entity_id: token.id, operation: 'read', revealed }),
        expect.objectContaining({
          entity_type: 'card',
          entity_id: 'list',
          entity_ids: JSON.stringify([token.id]),
          operation: 'read',
          message: 'Tokens listed',
          revealed,
        }),
      ]);
    });

    it('mask without a mask shows no data; plain token:read masks', async () => {
      const { token } = await f.services.tokens.create(f.app, { data: 'secret words' });
      const plain = appIn(f.tenantId, { permissions: ['token:read'] });
      expect(await f.services.tokens.get(plain, token.id)).not.toHaveProperty('data');
      const masked = await f.services.tokens.create(f.app, {
        data: 'secret words',
        mask: '{{ data | last4 }}',
      });
      expect((await f.services.tokens.get(plain, masked.token.id)).data).toBe('ords');
    });

    it('a reveal rule on a narrower container wins by priority over a wider mask rule', async () => {
      const low = await f.services.tokens.create(f.app, { data: 'low value', containers: ['/general/low/'] });
      const high = await f.services.tokens.create(f.app, { data: 'high value', mask: '{{ data | last4 }}' });
      const app = appIn(f.tenantId, {
        rules: [
          rule(1, '/general/low/', ['token:read'], 'reveal'),
          rule(2, '/general/', ['token:read'], 'mask'),
        ],
      });
      expect((await f.services.tokens.get(app, low.token.id)).data).toBe('low value');
      expect((await f.services.tokens.get(app, high.token.id)).data).toBe('alue');
    });
  });

  it('404 for unknown ids, other tenants’ tokens and tokens outside the caller’s containers', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      type: 'card_number',
      data: '4242424242424242',
    });
    const stranger = appIn(f.otherTenantId, { permissions: ['token:read', 'token:update', 'token:delete'] });
    expect(await codeOf(f.services.tokens.get(stranger, token.id))).toBe('NOT_FOUND');
    expect(await codeOf(f.services.tokens.update(stranger, token.id, { metadata: { a: 'b' } }))).toBe(
      'NOT_FOUND',
    );
    expect(await codeOf(f.services.tokens.delete(stranger, token.id))).toBe('NOT_FOUND');
    expect(await codeOf(f.services.tokens.get(f.app, 'no-such-token'))).toBe('NOT_FOUND');
    const general = appIn(f.tenantId, { rules: [rule(1, '/general/', ['token:read'], 'reveal')] });
    // The same answer as for a missing id: a 403 naming /pci/high/ would confirm the id exists.
    expect(await codeOf(f.services.tokens.get(general, token.id))).toBe('NOT_FOUND');
    const writer = appIn(f.tenantId, { permissions: ['token:create'] });
    expect(await codeOf(f.services.tokens.get(writer, 'no-such-token'))).toBe('FORBIDDEN');
    expect((await f.services.tokens.list(stranger, {}, { page: 1, size: 10 })).total).toBe(0);
  });

  it('audits and counts each read', async () => {
    const { token } = await f.services.tokens.create(f.app, { data: 'x' });
    await f.services.tokens.get(f.app, token.id);
    const entries = (await auditRows(f.vault, f.tenantId)).filter((r) => r.entity_id === token.id);
    expect(entries.map((e) => [e.operation, e.message])).toEqual([
      ['create', 'Token created'],
      ['read', 'Token read'],
    ]);
  });

  describe('list', () => {
    async function seed(): Promise<Record<string, string>> {
      const ids: Record<string, string> = {};
      const make = async (name: string, request: Parameters<typeof f.services.tokens.create>[1]) => {
        ids[name] = (await f.services.tokens.create(f.operator, request)).token.id;
        f.clock.advance(1000);
      };
      await make('a', {
        data: 'a',
        containers: ['/general/low/'],
        metadata: { customer: 'Alice', plan: 'gold' },
      });
      await make('b', { data: 'b', containers: ['/general/high/'], metadata: { customer: 'BOB' } });
      await make('card', { type: 'card_number', data: '4242424242424242', metadata: { customer: 'alice' } });
      await make('ssn', { type: 'social_security_number', data: '123-45-6789' });
      await make('c', { data: 'c', containers: ['/pii/low/'], metadata: { 'my.key': 'V' } });
      return ids;
    }

    it('is newest first, paginated, with totals', async () => {
      const ids = await seed();
      const page1 = await f.services.tokens.list(f.app, {}, { page: 1, size: 2 });
      const page3 = await f.services.tokens.list(f.app, {}, { page: 3, size: 2 });
      expect(page1.total).toBe(5);
      expect(page1.items.map((t) => t.id)).toEqual([ids.c, ids.ssn]);
      expect(page3.items.map((t) => t.id)).toEqual([ids.a]);
      expect((await f.services.tokens.list(f.app, {}, { page: 4, size: 2 })).items).toEqual([]);
    });

    it('filters by ids, types and metadata (case-insensitive, ANDed)', async () => {
      const ids = await seed();
      const list = async (filter: Parameters<typeof f.services.tokens.list>[1]) =>
        (await f.services.tokens.list(f.app, filter, { page: 1, size: 100 })).items.map((t) => t.id).sort();
      expect(await list({ ids: [ids.a!, ids.b!, 'missing'] })).toEqual([ids.a, ids.b].sort());
      expect(await list({ types: ['card_number', 'social_security_number'] })).toEqual(
        [ids.card, ids.ssn].sort(),
      );
      expect(await list({ metadata: { customer: 'ALICE' } })).toEqual([ids.a, ids.card].sort());
      expect(await list({ metadata: { customer: 'alice', plan: 'GOLD' } })).toEqual([ids.a]);
      expect(await list({ metadata: { 'my.key': 'v' } })).toEqual([ids.c]);
      expect(await list({ metadata: { customer: 'ali' } })).toEqual([]);
      expect(await list({ types: ['token'], metadata: { customer: 'bob' } })).toEqual([ids.b]);
    });

    it('counts and pages only what the caller may read', async () => {
      const ids = await seed();
      const general = appIn(f.tenantId, {
        rules: [rule(1, '/general/', ['token:read'], 'reveal'), rule(2, '/pii/', ['token:search'], 'reveal')],
      });
      const page = await f.services.tokens.list(general, {}, { page: 1, size: 1 });
      expect(page.total).toBe(2);
      expect(page.items.map((t) => [t.id, t.data])).toEqual([[ids.b, 'b']]);
      const both = appIn(f.tenantId, {
        rules: [rule(1, '/general/low/', ['token:read'], 'redact'), rule(2, '/pii/', ['token:read'], 'mask')],
      });
      const listed = await f.services.tokens.list(both, {}, { page: 1, size: 10 });
      expect(listed.items.map((t) => t.id)).toEqual([ids.c, ids.ssn, ids.a]);
      expect(listed.items.map((t) => t.data)).toEqual([undefined, 'XXX-XX-6789', undefined]);
      const searchOnly = appIn(f.tenantId, { rules: [rule(1, '/', ['token:search'], 'reveal')] });
      expect(await codeOf(f.services.tokens.list(searchOnly, {}, { page: 1, size: 10 }))).toBe('FORBIDDEN');
    });

    it('audits and counts as active only the tokens on the page', async () => {
      await seed();
      const before = await countRows(f, 'audit_logs');
      f.clock.set(new Date('2026-02-10T00:00:00Z'));
      const page = await f.services.tokens.list(f.app, {}, { page: 1, size: 2 });
      // One entry for the page, naming its tokens.
      expect((await countRows(f, 'audit_logs')) - before).toBe(1);
      expect((await auditRows(f.vault, f.tenantId)).at(-1)).toMatchObject({
        entity_type: 'token',
        entity_id: 'list',
        entity_ids: JSON.stringify(page.items.map((t) => t.id)),
      });
      expect(await monthlyActiveTokens(f.vault.db, f.tenantId, '2026-02')).toBe(2);
      expect(await monthlyActiveTokens(f.vault.db, f.tenantId, '2026-01')).toBe(5);
      // A repeated read adds nothing and writes no activity row.
      await f.services.tokens.get(f.app, page.items[0]!.id);
      expect(await monthlyActiveTokens(f.vault.db, f.tenantId, '2026-02')).toBe(2);
    });

    it('writes one entry per entity type on the page, revealed when any of its tokens was', async () => {
      const card = { number: '4242424242424242', expiration_month: 4, expiration_year: 2031 };
      const cards = [
        (await f.services.tokens.create(f.app, { type: 'card', data: card })).token.id,
        (await f.services.tokens.create(f.app, { type: 'card', data: card, containers: ['/other/'] })).token
          .id,
      ];
      const plain = (await f.services.tokens.create(f.app, { data: 'plain', containers: ['/other/'] })).token
        .id;
      const reader = appIn(f.tenantId, {
        rules: [rule(1, '/pci/', ['token:read'], 'reveal'), rule(2, '/other/', ['token:read'], 'redact')],
      });
      const before = (await auditRows(f.vault, f.tenantId)).length;
      await f.services.tokens.list(reader, {}, { page: 1, size: 10 });
      const added = (await auditRows(f.vault, f.tenantId)).slice(before);
      expect(added.map((e) => [e.entity_type, e.entity_id, e.entity_ids, e.revealed])).toEqual([
        ['token', 'list', JSON.stringify([plain]), 0],
        ['card', 'list', JSON.stringify([...cards].reverse()), 1],
      ]);
      // A page with nothing on it writes nothing.
      await f.services.tokens.list(reader, { types: ['bank'] }, { page: 1, size: 10 });
      expect(await auditRows(f.vault, f.tenantId)).toHaveLength(before + 2);
    });

    it('validates page, size and filters', async () => {
      expect(
        Object.keys(await fieldErrorsOf(f.services.tokens.list(f.app, {}, { page: 0, size: 101 }))),
      ).toEqual(['page', 'size']);
      // A type no token has matches nothing: an empty page, not an error.
      expect((await f.services.tokens.list(f.app, { types: ['nope'] }, { page: 1, size: 1 })).items).toEqual(
        [],
      );
      expect(
        await fieldErrorsOf(
          f.services.tokens.list(f.app, { metadata: { 'bad key': 'x' } }, { page: 1, size: 1 }),
        ),
      ).toHaveProperty('metadata');
      expect(
        await fieldErrorsOf(
          f.services.tokens.list(
            f.app,
            { ids: Array.from({ length: 101 }, (_, i) => `id-${i}`) },
            { page: 1, size: 1 },
          ),
        ),
      ).toHaveProperty('id');
    });
  });
});

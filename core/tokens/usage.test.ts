import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appIn, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';
import { monthlyActiveTokenHistory, monthlyActiveTokens, tokenMetricsByType } from './usage.ts';
import { TENANT_SCOPED_TABLES } from '../tenancy/tenants.ts';

describe('token usage', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it('counts a token once per UTC month when created, read or listed', async () => {
    const a = await f.services.tokens.create(f.app, { data: 'a' });
    await f.services.tokens.create(f.app, { type: 'card_number', data: '4242424242424242' });
    await f.services.tokens.get(f.app, a.token.id);
    expect(await monthlyActiveTokens(f.vault.db, f.tenantId, '2026-01')).toBe(2);
    f.clock.set(new Date('2026-01-31T23:59:59.999Z'));
    await f.services.tokens.get(f.app, a.token.id);
    f.clock.set(new Date('2026-02-01T00:00:00Z'));
    expect(await monthlyActiveTokens(f.vault.db, f.tenantId, '2026-02')).toBe(0);
    await f.services.tokens.get(f.app, a.token.id);
    await f.services.tokens.tokenize(f.app, ['x', 'y']);
    // Deleting keeps the month's count.
    await f.services.tokens.delete(f.app, a.token.id);
    expect(await monthlyActiveTokens(f.vault.db, f.tenantId, '2026-02')).toBe(3);
    expect(await monthlyActiveTokenHistory(f.vault.db, f.tenantId)).toEqual([
      { year: 2026, month: 1, count: 2 },
      { year: 2026, month: 2, count: 3 },
    ]);
    expect(await monthlyActiveTokens(f.vault.db, f.otherTenantId, '2026-02')).toBe(0);
  });

  it('counts live tokens per type with the newest creation time', async () => {
    await f.services.tokens.create(f.app, { data: 'a' });
    f.clock.advance(1000);
    await f.services.tokens.create(f.app, { data: 'b', expires_at: '2026-01-01T00:00:05Z' });
    await f.services.tokens.create(f.app, { type: 'card_number', data: '4242424242424242' });
    expect(await tokenMetricsByType(f.vault.db, f.tenantId, f.clock.now())).toEqual({
      card_number: { count: 1, last_created_at: '2026-01-01T00:00:01.000Z' },
      token: { count: 2, last_created_at: '2026-01-01T00:00:01.000Z' },
    });
    f.clock.advance(10_000);
    expect((await tokenMetricsByType(f.vault.db, f.tenantId, f.clock.now())).token).toEqual({
      count: 1,
      last_created_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('tenant deletion removes every token table’s rows of that tenant only', async () => {
    const other = appIn(f.otherTenantId, { permissions: ['token:create'] });
    await f.services.tokens.create(f.app, { type: 'social_security_number', data: '123-45-6789' });
    await f.services.tokens.create(other, { type: 'social_security_number', data: '123-45-6789' });
    await f.services.tenants.delete(f.operator);
    for (const table of TENANT_SCOPED_TABLES) {
      const mine = await f.vault.db
        .selectFrom(table)
        .selectAll()
        .where('tenant_id', '=', f.tenantId)
        .execute();
      expect([table, mine.length]).toEqual([table, 0]);
    }
    for (const table of ['tokens', 'token_search_indexes', 'token_activity'] as const) {
      const theirs = await f.vault.db
        .selectFrom(table)
        .selectAll()
        .where('tenant_id', '=', f.otherTenantId)
        .execute();
      expect([table, theirs.length > 0]).toEqual([table, true]);
    }
  });
});

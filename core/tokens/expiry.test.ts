import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditRows, codeOf } from '../test-support/services-fixture.ts';
import { countRows, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

const HOUR = 3_600_000;

describe('token expiry', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture(); // the clock starts at 2026-01-01T00:00:00Z
  });
  afterEach(() => f.close());

  it('normalises expires_at in responses, keeping the caller’s offset', async () => {
    const cases: Array<[string, string]> = [
      ['8/26/2030 7:23:57 PM -07:00', '2030-08-26T19:23:57-07:00'],
      ['9/27/2030', '2030-09-27T00:00:00Z'],
      ['2030-04-23T13:24:28', '2030-04-23T13:24:28Z'],
      ['2030-04-23T13:24:28+02:00', '2030-04-23T13:24:28+02:00'],
    ];
    for (const [input, shown] of cases) {
      const { token } = await f.services.tokens.create(f.app, { data: input, expires_at: input });
      expect(token.expires_at).toBe(shown);
      expect((await f.services.tokens.get(f.app, token.id)).expires_at).toBe(shown);
    }
    expect((await f.services.tokens.create(f.app, { data: 'x' })).token.expires_at).toBeNull();
  });

  it('hides an expired token at once, everywhere, before any sweep', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      type: 'social_security_number',
      data: '123-45-6789',
      expires_at: '2026-01-01T01:00:00Z',
    });
    const search = () => f.services.tokens.search(f.revealer, { query: 'data:6789', page: 1, size: 10 });
    expect((await search()).total).toBe(1);
    f.clock.advance(HOUR - 1);
    expect((await f.services.tokens.get(f.app, token.id)).id).toBe(token.id);
    f.clock.advance(1);
    expect(await codeOf(f.services.tokens.get(f.app, token.id))).toBe('NOT_FOUND');
    expect(await codeOf(f.services.tokens.update(f.app, token.id, { metadata: { a: 'b' } }))).toBe(
      'NOT_FOUND',
    );
    expect(await codeOf(f.services.tokens.delete(f.app, token.id))).toBe('NOT_FOUND');
    expect((await f.services.tokens.list(f.app, {}, { page: 1, size: 10 })).total).toBe(0);
    expect((await search()).total).toBe(0);
    // Not a duplicate either.
    const again = await f.services.tokens.create(f.app, {
      type: 'social_security_number',
      data: '123-45-6789',
      deduplicate_token: true,
    });
    expect(again.created).toBe(true);
    expect(await countRows(f, 'tokens')).toBe(2);
  });

  it('sweeps expired tokens with an audit record each, and only those', async () => {
    const soon = await f.services.tokens.create(f.app, {
      type: 'social_security_number',
      data: '123-45-6789',
      expires_at: '2026-01-01T00:30:00Z',
    });
    const later = await f.services.tokens.create(f.app, { data: 'b', expires_at: '2026-01-02T00:00:00Z' });
    await f.services.tokens.create(f.app, { data: 'c' });
    expect(await f.services.tokens.sweepExpired()).toBe(0);
    f.clock.advance(HOUR);
    expect(await f.services.tokens.sweepExpired()).toBe(1);
    expect(await countRows(f, 'tokens')).toBe(2);
    expect(await countRows(f, 'token_search_indexes')).toBe(0);
    const entries = (await auditRows(f.vault, f.tenantId)).filter((r) => r.entity_id === soon.token.id);
    expect(entries.at(-1)).toMatchObject({
      entity_type: 'token',
      operation: 'delete',
      message: 'Token expired',
      actor_id: null,
      actor_type: null,
    });
    f.clock.advance(24 * HOUR);
    expect(await f.services.tokens.sweepExpired()).toBe(1);
    expect(await codeOf(f.services.tokens.get(f.operator, later.token.id))).toBe('NOT_FOUND');
    expect(await f.services.logs.verify()).toMatchObject({ ok: true });
  });

  it('sweeps in batches across tenants', async () => {
    const other = { ...f.app, tenantId: f.otherTenantId };
    const items = Array.from({ length: 620 }, (_, i) => ({
      type: 'token',
      data: `v${i}`,
      expires_at: '1/2/2026',
    }));
    await f.services.tokens.tokenize(f.app, items.slice(0, 400));
    await f.services.tokens.tokenize(other, items.slice(400));
    f.clock.set(new Date('2026-01-02T00:00:00Z'));
    expect(await f.services.tokens.sweepExpired()).toBe(620);
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it('frees an expired token’s id for a new token', async () => {
    await f.services.tokens.create(f.app, { id: 'order-1', data: 'a', expires_at: '2026-01-01T00:00:01Z' });
    expect(await codeOf(f.services.tokens.create(f.app, { id: 'order-1', data: 'b' }))).toBe('CONFLICT');
    f.clock.advance(1000);
    const { token } = await f.services.tokens.create(f.app, { id: 'order-1', data: 'b' });
    expect((await f.services.tokens.get(f.operator, token.id)).data).toBe('b');
    const messages = (await auditRows(f.vault, f.tenantId))
      .filter((r) => r.entity_id === 'order-1')
      .map((r) => r.message);
    expect(messages).toEqual(['Token created', 'Token expired', 'Token created', 'Token read']);
  });
});

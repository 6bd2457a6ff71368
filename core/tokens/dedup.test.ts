import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditRows, codeOf } from '../test-support/services-fixture.ts';
import { appIn, countRows, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

describe('deduplication', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  const enableForTenant = async () => {
    await f.services.tenants.update(f.operator, { name: 'Acme', settings: { deduplicate_tokens: 'true' } });
  };
  const card = { type: 'card_number', data: '4242424242424242' } as const;

  it('is off by default; the request flag turns it on', async () => {
    const first = await f.services.tokens.create(f.app, card);
    const second = await f.services.tokens.create(f.app, card);
    expect(second.token.id).not.toBe(first.token.id);
    const third = await f.services.tokens.create(f.app, { ...card, deduplicate_token: true });
    expect(third).toMatchObject({ created: false, token: { id: first.token.id, data: 'XXXXXXXXXXXX4242' } });
    expect(await countRows(f, 'tokens')).toBe(2);
  });

  it('follows the tenant setting, and the request flag overrides it', async () => {
    await enableForTenant();
    const first = await f.services.tokens.create(f.app, card);
    expect((await f.services.tokens.create(f.app, card)).token.id).toBe(first.token.id);
    expect((await f.services.tokens.create(f.app, { ...card, deduplicate_token: false })).created).toBe(true);
    // A different type with the same data is no duplicate; nor is a token without fingerprint.
    expect((await f.services.tokens.create(f.app, { data: '4242424242424242' })).created).toBe(true);
    const empty = { data: { a: 1 }, fingerprint_expression: '{{ data.b }}' };
    await f.services.tokens.create(f.app, empty);
    expect((await f.services.tokens.create(f.app, empty)).created).toBe(true);
  });

  it('redacts the existing token for a caller who cannot read it, and audits the return', async () => {
    await enableForTenant();
    const first = await f.services.tokens.create(f.app, { ...card, metadata: { customer: 'c1' } });
    const writer = appIn(f.tenantId, { permissions: ['token:create'] });
    const dup = await f.services.tokens.create(writer, card);
    expect(dup.created).toBe(false);
    expect(Object.keys(dup.token).sort()).toEqual(
      ['id', 'tenant_id', 'type', 'fingerprint', 'containers'].sort(),
    );
    expect(dup.token).toMatchObject({ id: first.token.id, fingerprint: first.token.fingerprint });
    const revealer = appIn(f.tenantId, {
      permissions: ['token:create'],
      rules: [rule(1, '/pci/', ['token:read'], 'reveal')],
    });
    const seen = await f.services.tokens.create(revealer, card);
    expect(seen.token).toMatchObject({ data: '4242424242424242', metadata: { customer: 'c1' } });
    const entries = (await auditRows(f.vault, f.tenantId)).filter((r) => r.entity_id === first.token.id);
    expect(entries.map((e) => [e.operation, e.message])).toEqual([
      ['create', 'Token created'],
      ['read', 'Token returned as a duplicate'],
      ['read', 'Token returned as a duplicate'],
    ]);
  });

  it('works inside tokenize, also between items of one request', async () => {
    await enableForTenant();
    const existing = await f.services.tokens.create(f.app, { data: 'hello' });
    const out = (await f.services.tokens.tokenize(f.app, {
      a: 'hello',
      b: ['fresh', 'fresh'],
      c: { type: 'card_number', data: '4242424242424242' },
      d: { type: 'card_number', data: '4242424242424242' },
    })) as { a: string; b: string[]; c: { id: string }; d: { id: string } };
    expect(out.a).toBe(existing.token.id);
    expect(out.b[0]).toBe(out.b[1]);
    expect(out.c.id).toBe(out.d.id);
    expect(await countRows(f, 'tokens')).toBe(3);
  });

  it('an update that makes a duplicate returns the original (redacted without read) and changes nothing', async () => {
    await enableForTenant();
    const original = await f.services.tokens.create(f.app, { ...card, metadata: { owner: 'x' } });
    const other = await f.services.tokens.create(f.app, { type: 'card_number', data: '5555555555554444' });
    const updater = appIn(f.tenantId, { permissions: ['token:update'] });
    const result = await f.services.tokens.update(updater, other.token.id, { data: '4242424242424242' });
    expect(result.id).toBe(original.token.id);
    for (const field of ['data', 'metadata', 'fingerprint_expression', 'search_indexes', 'mask']) {
      expect(result).not.toHaveProperty(field);
    }
    expect((await f.services.tokens.get(f.operator, other.token.id)).data).toBe('5555555555554444');
    // With read permission the original is shown through the read transform; the flag can opt out.
    const readable = await f.services.tokens.update(f.app, other.token.id, { data: '4242424242424242' });
    expect(readable).toMatchObject({
      id: original.token.id,
      data: 'XXXXXXXXXXXX4242',
      metadata: { owner: 'x' },
    });
    // Keeping its own fingerprint, a token is no duplicate of itself.
    expect((await f.services.tokens.update(f.app, original.token.id, { metadata: { owner: 'y' } })).id).toBe(
      original.token.id,
    );
    const forced = await f.services.tokens.update(f.app, other.token.id, {
      data: '4242424242424242',
      deduplicate_token: false,
    });
    expect(forced).toMatchObject({ id: other.token.id, fingerprint: original.token.fingerprint });
  });

  it('an update duplicate keeps the identifying and timing fields', async () => {
    const original = await f.services.tokens.create(f.app, { ...card, metadata: { owner: 'x' } });
    const other = await f.services.tokens.create(f.app, { type: 'card_number', data: '5555555555554444' });
    const updater = appIn(f.tenantId, { permissions: ['token:update'] });
    const result = await f.services.tokens.update(updater, other.token.id, {
      data: '4242424242424242',
      deduplicate_token: true,
    });
    expect(Object.keys(result).sort()).toEqual(
      [
        'id',
        'tenant_id',
        'type',
        'fingerprint',
        'containers',
        'privacy',
        'created_by',
        'created_at',
        'modified_by',
        'modified_at',
        'expires_at',
      ].sort(),
    );
    expect(result.id).toBe(original.token.id);
  });

  it('public applications never deduplicate: the flag is a 403, the tenant setting does not apply', async () => {
    const browser = {
      ...appIn(f.tenantId, { permissions: ['token:create', 'token:update'] }),
      applicationType: 'public' as const,
    };
    const first = await f.services.tokens.create(f.app, card);
    expect(await codeOf(f.services.tokens.create(browser, { ...card, deduplicate_token: true }))).toBe(
      'FORBIDDEN',
    );
    await enableForTenant();
    const mine = await f.services.tokens.create(browser, card);
    expect(mine.created).toBe(true);
    expect(mine.token.id).not.toBe(first.token.id);
    expect(
      await codeOf(
        f.services.tokens.update(browser, mine.token.id, { metadata: { a: 'b' }, deduplicate_token: true }),
      ),
    ).toBe('FORBIDDEN');
    expect(await countRows(f, 'tokens')).toBe(2);
  });
});

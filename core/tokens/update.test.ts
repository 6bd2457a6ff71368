import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { auditRows, codeOf, fieldErrorsOf } from '../test-support/services-fixture.ts';
import { appIn, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

describe('updating tokens (merge patch)', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  const reveal = (id: string) => f.services.tokens.get(f.operator, id);
  /** Reads in plaintext (so it may change masks, expressions and containers); updates mask. */
  const editor = () =>
    appIn(f.tenantId, { permissions: ['token:update'], rules: [rule(1, '/', ['token:read'], 'reveal')] });

  it('merges data, mask and metadata; null removes members; nested objects merge', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: { name: { first: 'Ada', last: 'Lovelace' }, email: 'ada@example.com', tags: ['a', 'b'] },
      mask: { name: { first: '{{ data.name.first }}' }, email: '{{ data.email | reveal_last: 4 }}' },
      metadata: { customer: 'c1', plan: 'gold' },
    });
    f.clock.advance(60_000);
    const app = editor();
    const updated = await f.services.tokens.update(app, token.id, {
      data: { name: { last: null, middle: 'King' }, email: null, tags: ['c'] },
      mask: { email: null, tags: '{{ data.tags }}' },
      metadata: { plan: null, region: 'eu' },
    });
    expect((await reveal(token.id)).data).toEqual({ name: { first: 'Ada', middle: 'King' }, tags: ['c'] });
    expect(updated).toMatchObject({
      data: { name: { first: 'Ada' }, tags: ['c'] },
      mask: { name: { first: '{{ data.name.first }}' }, tags: '{{ data.tags }}' },
      metadata: { customer: 'c1', region: 'eu' },
      modified_at: '2026-01-01T00:01:00.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(updated.modified_by).toBe(app.kind === 'application' ? app.applicationId : undefined);
    // A primitive patch replaces; mask null removes the mask; metadata null clears it.
    const again = await f.services.tokens.update(app, token.id, {
      data: 'plain',
      mask: null,
      metadata: null,
    });
    expect(again).not.toHaveProperty('data');
    expect(again).not.toHaveProperty('mask');
    expect(again.metadata).toEqual({});
    expect((await reveal(token.id)).data).toBe('plain');
  });

  it('replaces containers, search indexes, fingerprint expression and expiry (null → defaults)', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: 'abc',
      containers: ['/general/low/'],
      search_indexes: ['{{ data }}'],
      fingerprint_expression: '{{ data | upcase }}',
      expires_at: '1/1/2030',
    });
    const updated = await f.services.tokens.update(f.revealer, token.id, {
      containers: ['/other/'],
      search_indexes: ['{{ data | last4 }}', '{{ data | upcase }}'],
      fingerprint_expression: null,
      expires_at: '2031-06-01T10:00:00+02:00',
    });
    expect(updated).toMatchObject({
      containers: ['/other/'],
      search_indexes: ['{{ data | last4 }}', '{{ data | upcase }}'],
      fingerprint_expression: '{{ data | stringify }}',
      expires_at: '2031-06-01T10:00:00+02:00',
    });
    const search = (query: string) => f.services.tokens.search(f.revealer, { query, page: 1, size: 10 });
    expect((await search('data:ABC')).total).toBe(1);
    const cleared = await f.services.tokens.update(f.revealer, token.id, {
      containers: null,
      search_indexes: null,
      expires_at: null,
    });
    expect(cleared).toMatchObject({ containers: ['/general/high/'], search_indexes: [], expires_at: null });
    expect((await search('data:abc')).total).toBe(0);
  });

  it('recomputes the fingerprint and the mask from the new data', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      type: 'card_number',
      data: '4242424242424242',
    });
    const other = await f.services.tokens.create(f.app, { type: 'card_number', data: '5555555555554444' });
    const updated = await f.services.tokens.update(f.app, token.id, { data: '5555555555554444' });
    expect(updated.data).toBe('XXXXXXXXXXXX4444');
    expect(updated.fingerprint).toBe(other.token.fingerprint);
  });

  it.each([
    ['type change', { type: 'card' }, ['type']],
    ['id change', { id: 'new-id' }, ['id']],
    ['data removed', { data: null }, ['data']],
    ['invalid data for the type', { data: '123' }, ['data']],
    ['a mask with an unknown filter', { mask: '{{ data | no_such_filter }}' }, ['mask']],
    ['search indexes on card_number', { search_indexes: ['{{ data }}'] }, ['search_indexes']],
    ['bad container', { containers: ['x'] }, ['containers[0]']],
    ['metadata not an object', { metadata: 'x' }, ['metadata']],
    ['metadata value not a string', { metadata: { a: 1 } }, ['metadata.a']],
    ['expiry in the past', { expires_at: '2020-01-01T00:00:00Z' }, ['expires_at']],
  ])('400 on %s, nothing changed', async (_name, patch, fields) => {
    const { token } = await f.services.tokens.create(f.app, {
      type: 'card_number',
      data: '4242424242424242',
    });
    const errors = await fieldErrorsOf(f.services.tokens.update(f.app, token.id, patch));
    expect(Object.keys(errors)).toEqual(fields);
    expect(await reveal(token.id)).toMatchObject({ data: '4242424242424242', modified_at: null });
  });

  it('accepts the current id and type repeated in the patch', async () => {
    const { token } = await f.services.tokens.create(f.app, { data: 'x' });
    const updated = await f.services.tokens.update(f.app, token.id, {
      id: token.id,
      type: 'token',
      metadata: { a: 'b' },
    });
    expect(updated.metadata).toEqual({ a: 'b' });
  });

  describe('changing how data is derived needs plaintext read access', () => {
    const card = { type: 'card_number', data: '4242424242424242' } as const;

    it.each([
      ['mask', { mask: '{{ data }}' }],
      ['fingerprint_expression', { fingerprint_expression: '{{ data | slice: 0, 1 }}' }],
      ['fingerprint_expression', { fingerprint_expression: null, mask: null }],
      ['containers', { containers: ['/general/'] }],
    ])('403 naming %s for a masking updater, nothing changed', async (field, patch) => {
      const { token } = await f.services.tokens.create(f.revealer, {
        ...card,
        fingerprint_expression: '{{ data | slice: 0, 6 }}',
      });
      let error: unknown;
      try {
        await f.services.tokens.update(f.app, token.id, patch);
      } catch (e) {
        error = e;
      }
      expect(isVaultError(error, 'FORBIDDEN')).toBe(true);
      expect(isVaultError(error) ? error.message : '').toContain(field);
      expect(await reveal(token.id)).toMatchObject({ modified_at: null, fingerprint: token.fingerprint });
    });

    it('search indexes too, and a revealing reader on the old container only cannot move', async () => {
      const { token } = await f.services.tokens.create(f.revealer, {
        type: 'social_security_number',
        data: '123-45-6789',
      });
      expect(
        await codeOf(f.services.tokens.update(f.app, token.id, { search_indexes: ['{{ data }}'] })),
      ).toBe('FORBIDDEN');
      const oldOnly = appIn(f.tenantId, {
        permissions: ['token:update'],
        rules: [rule(1, '/pii/', ['token:read'], 'reveal')],
      });
      expect(await codeOf(f.services.tokens.update(oldOnly, token.id, { containers: ['/elsewhere/'] }))).toBe(
        'FORBIDDEN',
      );
      const moved = await f.services.tokens.update(oldOnly, token.id, { containers: ['/pii/low/'] });
      expect(moved.containers).toEqual(['/pii/low/']);
    });

    it('a patch repeating the stored values needs nothing', async () => {
      const { token } = await f.services.tokens.create(f.revealer, card);
      const echoed = await f.services.tokens.update(f.app, token.id, {
        mask: token.mask,
        fingerprint_expression: token.fingerprint_expression,
        search_indexes: token.search_indexes,
        containers: token.containers,
        data: '5555555555554444',
      });
      expect(echoed.data).toBe('XXXXXXXXXXXX4444');
    });

    it('the response shows the stricter of the update and read transforms', async () => {
      const { token } = await f.services.tokens.create(f.revealer, card);
      const updateOnly = appIn(f.tenantId, { rules: [rule(1, '/', ['token:update'], 'reveal')] });
      const noRead = await f.services.tokens.update(updateOnly, token.id, { metadata: { a: 'b' } });
      expect(noRead).not.toHaveProperty('data');
      const maskedRead = appIn(f.tenantId, {
        rules: [rule(1, '/', ['token:update'], 'reveal'), rule(2, '/', ['token:read'], 'mask')],
      });
      expect((await f.services.tokens.update(maskedRead, token.id, { metadata: { a: 'c' } })).data).toBe(
        'XXXXXXXXXXXX4242',
      );
      expect((await f.services.tokens.update(f.revealer, token.id, { metadata: { a: 'd' } })).data).toBe(
        '4242424242424242',
      );
    });

    it('a custom mask on any type, changed by a revealing key', async () => {
      const { token } = await f.services.tokens.create(f.app, { ...card, mask: '{{ data | reveal: 6 }}' });
      expect(token.data).toBe('424242XXXXXXXXXX');
      const updated = await f.services.tokens.update(f.revealer, token.id, {
        mask: { last: '{{ data | last4 }}' },
      });
      expect(updated.mask).toEqual({ last: '{{ data | last4 }}' });
      expect((await f.services.tokens.get(f.app, token.id)).data).toEqual({ last: '4242' });
    });
  });

  it('moving needs token:update on both containers; the response uses the new container’s transform', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: 'value',
      mask: '{{ data | last4 }}',
      containers: ['/a/'],
    });
    const readAll = rule(9, '/', ['token:read'], 'reveal');
    const onlyA = appIn(f.tenantId, { rules: [rule(1, '/a/', ['token:update'], 'reveal'), readAll] });
    expect(await codeOf(f.services.tokens.update(onlyA, token.id, { containers: ['/b/'] }))).toBe(
      'FORBIDDEN',
    );
    const onlyB = appIn(f.tenantId, { rules: [rule(1, '/b/', ['token:update'], 'reveal'), readAll] });
    expect(await codeOf(f.services.tokens.update(onlyB, token.id, { containers: ['/b/'] }))).toBe(
      'FORBIDDEN',
    );
    expect((await reveal(token.id)).containers).toEqual(['/a/']);
    const both = appIn(f.tenantId, {
      rules: [
        rule(1, '/a/', ['token:update'], 'reveal'),
        rule(2, '/b/', ['token:update'], 'redact'),
        readAll,
      ],
    });
    const moved = await f.services.tokens.update(both, token.id, { containers: ['/b/'] });
    expect(moved.containers).toEqual(['/b/']);
    expect(moved).not.toHaveProperty('data');
    // A plain token:update masks.
    expect((await f.services.tokens.update(f.app, token.id, { metadata: { a: 'b' } })).data).toBe('alue');
    const noUpdate = appIn(f.tenantId, { permissions: ['token:read'] });
    expect(await codeOf(f.services.tokens.update(noUpdate, token.id, {}))).toBe('FORBIDDEN');
  });

  it('audits the update without data', async () => {
    const { token } = await f.services.tokens.create(f.app, { data: 'top secret value' });
    await f.services.tokens.update(f.app, token.id, { data: 'another secret value' });
    const entries = (await auditRows(f.vault, f.tenantId)).filter((r) => r.entity_id === token.id);
    expect(entries.map((e) => [e.entity_type, e.operation, e.message])).toEqual([
      ['token', 'create', 'Token created'],
      ['token', 'update', 'Token updated'],
    ]);
    expect(JSON.stringify(entries)).not.toContain('secret');
  });

  describe('delete', () => {
    it('removes the row and its indexes; the audit entry remains; needs token:delete there', async () => {
      const { token } = await f.services.tokens.create(f.app, {
        type: 'social_security_number',
        data: '123-45-6789',
      });
      const reader = appIn(f.tenantId, {
        permissions: ['token:read'],
        rules: [rule(1, '/pci/', ['token:delete'], 'redact')],
      });
      expect(await codeOf(f.services.tokens.delete(reader, token.id))).toBe('FORBIDDEN');
      await f.services.tokens.delete(f.app, token.id);
      expect(await codeOf(f.services.tokens.get(f.operator, token.id))).toBe('NOT_FOUND');
      expect(await codeOf(f.services.tokens.delete(f.app, token.id))).toBe('NOT_FOUND');
      expect(await f.vault.db.selectFrom('tokens').selectAll().execute()).toEqual([]);
      expect(await f.vault.db.selectFrom('token_search_indexes').selectAll().execute()).toEqual([]);
      const entries = (await auditRows(f.vault, f.tenantId)).filter((r) => r.entity_id === token.id);
      expect(entries.map((e) => e.operation)).toEqual(['create', 'delete']);
      // The id is free again.
      expect((await f.services.tokens.create(f.app, { id: token.id, data: 'x' })).token.id).toBe(token.id);
    });
  });
});

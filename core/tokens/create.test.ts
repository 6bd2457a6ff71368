import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditRows, codeOf, fieldErrorsOf } from '../test-support/services-fixture.ts';
import { operatorIn } from '../access/principal.ts';
import { appIn, countRows, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

const FINGERPRINT = /^[1-9A-HJ-NP-Za-km-z]{1,100}$/;

describe('creating tokens', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it.each([
    ['token', 'Sensitive Value', '/general/high/', undefined],
    [
      'card',
      { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' },
      '/pci/high/',
      { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 },
    ],
    [
      'bank',
      { routing_number: '021000021', account_number: '1234567890' },
      '/bank/high/',
      { routing_number: '021000021', account_number: 'XXXXXX7890' },
    ],
    ['card_number', '36227206271667', '/pci/high/', 'XXXXXXXXXX1667'],
    ['us_bank_account_number', '1234567890', '/bank/high/', 'XXXXXX7890'],
    ['us_bank_routing_number', '021000021', '/bank/low/', 'XXXXX0021'],
    ['social_security_number', '123-45-6789', '/pii/high/', 'XXX-XX-6789'],
    ['employer_id_number', '12-3456789', '/pii/high/', 'XX-XXX6789'],
  ])(
    '%s: default container, masked response, fingerprint, readable back',
    async (type, data, container, masked) => {
      const { token, created } = await f.services.tokens.create(f.app, { type, data });
      expect(created).toBe(true);
      expect(token).toMatchObject({ type, tenant_id: f.tenantId, containers: [container] });
      if (masked === undefined) expect(token).not.toHaveProperty('data');
      else expect(token.data).toEqual(masked);
      expect(token.fingerprint).toMatch(FINGERPRINT);
      expect(token.created_by).toBe(f.app.kind === 'application' ? f.app.applicationId : null);
      expect(token.created_at).toBe('2026-01-01T00:00:00.000Z');
      const read = await f.services.tokens.get(f.operator, token.id);
      expect(read.data).toEqual(data);
      expect({ ...read, data: undefined }).toEqual({ ...token, data: undefined });
    },
  );

  it('defaults the type to token and applies a custom mask', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: 'Sensitive Value',
      mask: '{{ data | reveal_last: 4 }}',
      metadata: { nonSensitiveField: 'Non-Sensitive Value' },
    });
    expect(token).toMatchObject({
      type: 'token',
      data: 'XXXXXXXXXXXalue',
      mask: '{{ data | reveal_last: 4 }}',
      metadata: { nonSensitiveField: 'Non-Sensitive Value' },
      fingerprint_expression: '{{ data | stringify }}',
      search_indexes: [],
    });
  });

  it.each([
    ['card', { number: '4242424242424242' }, { number: '{{ data.number | last4 }}' }, { number: '4242' }],
    [
      'bank',
      { routing_number: '021000021', account_number: '12345' },
      '{{ data.account_number | last4 }}',
      '2345',
    ],
    ['card_number', '4242424242424242', '{{ data | slice: 0, 6 }}', '424242'],
    ['us_bank_account_number', '000123456', null, undefined],
    ['us_bank_routing_number', '021000021', 'routing', 'routing'],
    ['social_security_number', '123-45-6789', '{{ data | slice: 0, 3 }}', '123'],
    ['employer_id_number', '12-3456789', ['{{ data | last4 }}'], ['6789']],
  ])('accepts a custom mask on %s', async (type, data, mask, shown) => {
    const { token } = await f.services.tokens.create(f.app, { type, data, mask });
    expect(token.data).toEqual(shown);
    if (mask === null) expect(token).not.toHaveProperty('mask');
    else expect(token.mask).toEqual(mask);
  });

  it('accepts search_indexes: [] on every type (an empty list supplies nothing)', async () => {
    for (const type of ['card_number', 'us_bank_routing_number']) {
      const data = type === 'card_number' ? '4242424242424242' : '021000021';
      const { token } = await f.services.tokens.create(f.app, { type, data, search_indexes: [] });
      expect(token.search_indexes).toEqual([]);
    }
  });

  describe('fingerprints', () => {
    const fp = async (principal = f.app, request: Parameters<typeof f.services.tokens.create>[1]) =>
      (await f.services.tokens.create(principal, request)).token.fingerprint;

    it('are equal for the same type and data, and differ by type, data and tenant', async () => {
      const a = await fp(f.app, { type: 'card_number', data: '4242424242424242' });
      expect(await fp(f.app, { type: 'card_number', data: '4242424242424242' })).toBe(a);
      expect(
        await fp(f.app, { type: 'token', data: '4242424242424242', fingerprint_expression: '{{ data }}' }),
      ).not.toBe(a);
      expect(await fp(f.app, { type: 'card_number', data: '5555555555554444' })).not.toBe(a);
      const other = appIn(f.otherTenantId, { permissions: ['token:create'] });
      expect(await fp(other, { type: 'card_number', data: '4242424242424242' })).not.toBe(a);
    });

    it('follow the expression: SSN ignores dashes, card only the number, metadata when asked', async () => {
      expect(await fp(f.app, { type: 'social_security_number', data: '123-45-6789' })).toBe(
        await fp(f.app, { type: 'social_security_number', data: '123456789' }),
      );
      expect(await fp(f.app, { type: 'card', data: { number: '4242424242424242', cvc: '123' } })).toBe(
        await fp(f.app, { type: 'card', data: { number: '4242424242424242', expiration_month: 1 } }),
      );
      const byCustomer = (customer: string, data: string) =>
        fp(f.app, {
          data,
          metadata: { customer },
          fingerprint_expression: 'customer-{{ metadata.customer }}',
        });
      expect(await byCustomer('c1', 'x')).toBe(await byCustomer('c1', 'y'));
      expect(await byCustomer('c1', 'x')).not.toBe(await byCustomer('c2', 'x'));
    });

    it('is absent when the expression yields nothing', async () => {
      const { token } = await f.services.tokens.create(f.app, {
        data: { a: 1 },
        fingerprint_expression: '{{ data.missing }}',
      });
      expect(token).not.toHaveProperty('fingerprint');
    });
  });

  describe('ids', () => {
    it('takes a caller id once; a second use is 409 and writes nothing', async () => {
      const { token } = await f.services.tokens.create(f.app, { id: 'customer:42 ~ é', data: 'x' });
      expect(token.id).toBe('customer:42 ~ é');
      const before = await countRows(f, 'audit_logs');
      expect(await codeOf(f.services.tokens.create(f.app, { id: 'customer:42 ~ é', data: 'y' }))).toBe(
        'CONFLICT',
      );
      expect(await countRows(f, 'tokens')).toBe(1);
      expect(await countRows(f, 'audit_logs')).toBe(before);
      // Ids are per tenant.
      const other = appIn(f.otherTenantId, { permissions: ['token:create'] });
      expect((await f.services.tokens.create(other, { id: 'customer:42 ~ é', data: 'y' })).token.id).toBe(
        'customer:42 ~ é',
      );
    });

    it.each([['a/b'], ['ab'], ['x#y'], ['50%'], ['a'.repeat(401)], ['a?b']])(
      'refuses %s with 400 on id',
      async (id) => {
        expect(Object.keys(await fieldErrorsOf(f.services.tokens.create(f.app, { id, data: 'x' })))).toEqual([
          'id',
        ]);
      },
    );

    it('evaluates alias expressions, and falls back to a UUID when the alias is taken', async () => {
      const { token } = await f.services.tokens.create(f.app, {
        type: 'social_security_number',
        id: '{{ data | alias_preserve_format: 0, 4 }}',
        data: '111-22-3333',
      });
      expect(token.id).toMatch(/^\d{3}-\d{2}-3333$/);
      const fixed = '{{ data | slice: 0, 3 }}-fixed';
      expect((await f.services.tokens.create(f.app, { id: fixed, data: 'abcdef' })).token.id).toBe(
        'abc-fixed',
      );
      expect((await f.services.tokens.create(f.app, { id: fixed, data: 'abcxyz' })).token.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(
        await fieldErrorsOf(f.services.tokens.create(f.app, { id: '{{ data }}/x', data: 'abc' })),
      ).toHaveProperty('id');
      expect(
        await fieldErrorsOf(f.services.tokens.create(f.app, { id: '{{ data | nope }}', data: 'abc' })),
      ).toHaveProperty('id');
    });
  });

  describe('validation (400 naming the field, nothing written)', () => {
    it.each([
      ['unknown type', { type: 'passport', data: 'x' }, ['type']],
      ['missing data', { type: 'token' }, ['data']],
      ['null data', { data: null }, ['data']],
      [
        'bad card',
        { type: 'card', data: { number: '4242424242424241', expiration_month: 13 } },
        ['data.number', 'data.expiration_month'],
      ],
      [
        'bad routing number',
        { type: 'bank', data: { routing_number: '123456789', account_number: '1' } },
        ['data.routing_number'],
      ],
      [
        'search indexes on a card',
        { type: 'card', data: { number: '4242424242424242' }, search_indexes: ['{{ data.number }}'] },
        ['search_indexes'],
      ],
      ['two containers', { data: 'x', containers: ['/a/', '/b/'] }, ['containers']],
      ['bad container', { data: 'x', containers: ['pci'] }, ['containers[0]']],
      ['metadata value not a string', { data: 'x', metadata: { a: 1 } }, ['metadata.a']],
      ['metadata key syntax', { data: 'x', metadata: { '-a': 'x' } }, ['metadata']],
      ['metadata key too long', { data: 'x', metadata: { ['k'.repeat(201)]: 'x' } }, ['metadata']],
      ['metadata value too long', { data: 'x', metadata: { k: 'v'.repeat(501) } }, ['metadata.k']],
      [
        'too many metadata keys',
        { data: 'x', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
        ['metadata'],
      ],
      ['invalid mask expression', { data: 'x', mask: { a: '{{ data | nope }}' } }, ['mask.a']],
      ['mask that fails on the data', { data: 'x', mask: "{{ data | json: '$.a' }}" }, ['mask']],
      ['empty search index', { data: 'x', search_indexes: ['{{ data.missing }}'] }, ['search_indexes[0]']],
      [
        'fingerprint expression too long',
        { data: 'x', fingerprint_expression: `{{ data }}${' '.repeat(400)}` },
        ['fingerprint_expression'],
      ],
      ['deduplicate_token not boolean', { data: 'x', deduplicate_token: 'yes' }, ['deduplicate_token']],
      ['expiry in the past', { data: 'x', expires_at: '1/1/2020' }, ['expires_at']],
      ['expiry malformed', { data: 'x', expires_at: 'soon' }, ['expires_at']],
    ])('%s', async (_name, request, fields) => {
      const errors = await fieldErrorsOf(f.services.tokens.create(f.app, request as never));
      expect(Object.keys(errors).sort()).toEqual([...fields].sort());
      expect(JSON.stringify(errors)).not.toContain('4242424242424241');
      expect(await countRows(f, 'tokens')).toBe(0);
    });

    it('accepts the metadata limits exactly', async () => {
      const metadata = Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`k.${i}_x-${'a'.repeat(180)}`, 'v'.repeat(500)]),
      );
      const { token } = await f.services.tokens.create(f.app, { data: 'x', metadata: { ...metadata } });
      expect(Object.keys(token.metadata ?? {})).toHaveLength(50);
      expect(
        (await f.services.tokens.create(f.app, { data: 'x', metadata: { a: '' } })).token.metadata,
      ).toEqual({ a: '' });
    });
  });

  describe('permissions', () => {
    it('needs token:create on the target container; the response uses that rule’s transform', async () => {
      const pci = appIn(f.tenantId, {
        rules: [
          rule(1, '/pci/', ['token:create'], 'reveal'),
          rule(2, '/general/', ['token:create'], 'redact'),
        ],
      });
      const card = await f.services.tokens.create(pci, { type: 'card_number', data: '4242424242424242' });
      expect(card.token.data).toBe('4242424242424242');
      const plain = await f.services.tokens.create(pci, { data: 'x', mask: '{{ data }}' });
      expect(plain.token).not.toHaveProperty('data');
      expect(
        await codeOf(
          f.services.tokens.create(pci, {
            type: 'bank',
            data: { routing_number: '021000021', account_number: '1' },
          }),
        ),
      ).toBe('FORBIDDEN');
      expect(await codeOf(f.services.tokens.create(pci, { data: 'x', containers: ['/pii/'] }))).toBe(
        'FORBIDDEN',
      );
    });

    it('refuses callers without token:create before looking at the body', async () => {
      const reader = appIn(f.tenantId, { permissions: ['token:read'] });
      expect(await codeOf(f.services.tokens.create(reader, { type: 'nope' } as never))).toBe('FORBIDDEN');
      const user = {
        kind: 'user' as const,
        tenantId: f.tenantId,
        userId: 'u',
        sessionId: 's',
        role: 'OWNER' as const,
      };
      expect(await codeOf(f.services.tokens.create(user, { data: 'x' }))).toBe('FORBIDDEN');
    });

    it('refuses an operator acting in a tenant that does not exist', async () => {
      expect(await codeOf(f.services.tokens.create(operatorIn('no-such-tenant'), { data: 'x' }))).toBe(
        'NOT_FOUND',
      );
    });
  });

  it('audits each create with entity type token (card and bank keep theirs) and never the data', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      type: 'card_number',
      data: '4242424242424242',
    });
    const entries = (await auditRows(f.vault, f.tenantId)).filter((r) => r.entity_id === token.id);
    expect(entries).toMatchObject([
      {
        entity_type: 'token',
        operation: 'create',
        message: 'Token created',
        actor_type: 'application',
      },
    ]);
    await f.services.tokens.get(f.operator, token.id);
    const all = JSON.stringify(await auditRows(f.vault));
    expect(all).not.toContain('4242424242424242');
    expect(all).not.toContain('424242');
    expect(await f.services.logs.verify(f.tenantId)).toMatchObject({ ok: true });
  });
});

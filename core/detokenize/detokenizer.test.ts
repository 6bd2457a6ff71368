import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { isVaultError, type VaultError } from '../errors/catalogue.ts';
import {
  codeOf,
  detailOf,
  fieldErrorsOf,
  openServicesFixture,
  seedTenant,
} from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { MAX_DETOKENIZED_TOKENS } from './detokenizer.ts';
import { scanText } from './scanner.ts';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

describe('scanText', () => {
  it('splits text and expressions, with spaces, filters and quoted braces', () => {
    const pieces = scanText("a {{id1}} b {{ id2 | json: '$.x}}' | last4 }}", 'f');
    expect(pieces.map((p) => (p.kind === 'text' ? p.text : p.expression.tokenId))).toEqual([
      'a ',
      'id1',
      ' b ',
      'id2',
    ]);
    const last = pieces[3];
    expect(last?.kind === 'expression' && last.expression.filters).toBe("json: '$.x}}' | last4");
  });

  it.each([
    ['{{ id', 'without its closing'],
    ['{{   }}', 'without a valid token id'],
    ['{{ two words }}', 'without a valid token id'],
    ['{{ id | }}', 'empty filter'],
  ])('refuses %j', (text, message) => {
    expect(() => scanText(text, 'f')).toThrow(/validation/i);
    try {
      scanText(text, 'f');
    } catch (error) {
      expect(JSON.stringify((error as { errors: unknown }).errors)).toContain(message);
    }
  });
});

describe('detokenizer', () => {
  let fx: ServicesFixture;
  let tenantId: string;
  let user: Principal;
  let reader: Principal;
  let plain: string;
  let card: string;
  let secret: string;

  const keyPrincipal = async (permissions: string[], rules: unknown[] = []): Promise<Principal> => {
    const app = await fx.services.applications.create(
      { kind: 'operator', tenantId },
      { name: 'k', type: 'private', permissions, rules: rules as never },
    );
    const principal = await fx.services.auth.authenticateApiKey(app.key);
    if (!principal) throw new Error('no principal');
    return principal;
  };

  beforeEach(async () => {
    fx = await openServicesFixture();
    ({ tenantId } = await seedTenant(fx.services));
    const op: Principal = { kind: 'operator', tenantId };
    plain = (await fx.services.tokens.create(op, { type: 'token', data: 'John' })).token.id;
    card = (await fx.services.tokens.create(op, { type: 'card', data: CARD })).token.id;
    secret = (await fx.services.tokens.create(op, { type: 'token', data: 'Brown', containers: ['/secret/'] }))
      .token.id;
    user = await keyPrincipal(
      [],
      [
        {
          description: '',
          priority: 1,
          container: '/general/',
          permissions: ['token:use'],
          transform: 'reveal',
        },
        { description: '', priority: 2, container: '/pci/', permissions: ['token:use'], transform: 'reveal' },
      ],
    );
    reader = await keyPrincipal(['token:read']);
  });
  afterEach(async () => fx.close());

  const use = (principal: Principal, value: unknown) =>
    fx.services.detokenizer.detokenize(principal, value, { permission: 'token:use', field: 'args' });

  it('substitutes primitives in place, embeds a whole complex token and mixes text', async () => {
    const op: Principal = { kind: 'operator', tenantId };
    const out = await use(op, {
      name: `{{${plain}}} {{ ${secret} }}`,
      card: `{{ ${card} }}`,
      last4: `{{ ${card} | json: '$.number' | last4 }}`,
      n: 5,
      list: [`x{{${card}}}`, null],
    });
    expect(out).toEqual({
      name: 'John Brown',
      card: CARD,
      last4: '4242',
      n: 5,
      list: [`x${JSON.stringify(CARD)}`, null],
    });
  });

  it('checks token:use on each token container and audits each token once as use', async () => {
    await expect(use(user, { a: `{{${plain}}}`, b: `{{${plain}}}`, c: `{{${card}}}` })).resolves.toEqual({
      a: 'John',
      b: 'John',
      c: CARD,
    });
    expect(await codeOf(use(user, { a: `{{${secret}}}` }))).toBe('VALIDATION_FAILED');
    const uses = await fx.vault.db
      .selectFrom('audit_logs')
      .select(['entity_type', 'entity_id', 'operation', 'message', 'revealed'])
      .where('operation', '=', 'use')
      .execute();
    expect(uses.map((u) => u.entity_id).sort()).toEqual([plain, card].sort());
    expect(uses.every((u) => u.message === 'Token used')).toBe(true);
    // Each says its data went out unmasked, under the token's entity type.
    expect(uses.map((u) => [u.entity_type, u.revealed]).sort()).toEqual([
      ['card', 1],
      ['token', 1],
    ]);
    // Through a mask, the use is recorded as masked.
    const masking = await keyPrincipal(
      [],
      [
        {
          description: '',
          priority: 1,
          container: '/general/',
          permissions: ['token:use'],
          transform: 'mask',
        },
      ],
    );
    await use(masking, { a: `{{${plain}}}` });
    const masked = await fx.vault.db
      .selectFrom('audit_logs')
      .select(['entity_id', 'revealed'])
      .where('operation', '=', 'use')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(masked).toEqual({ entity_id: plain, revealed: 0 });
    const active = await fx.vault.db.selectFrom('token_activity').select('token_id').execute();
    expect(new Set(active.map((a) => a.token_id))).toContain(plain);
  });

  it('answers an unknown id with 400 naming it, and nothing is audited', async () => {
    const before = await fx.vault.db.selectFrom('audit_logs').select('id').execute();
    const errors = await fieldErrorsOf(use(user, { a: `{{${plain}}}`, b: '{{ no-such-token }}' }));
    expect(errors['tokens']).toEqual(['no token with id no-such-token']);
    const after = await fx.vault.db.selectFrom('audit_logs').select('id').execute();
    expect(after.length).toBe(before.length);
  });

  it('answers a token the caller may not read exactly like an unknown id, and records nothing', async () => {
    const answer = async (value: unknown, id: string) => {
      const error = (await use(user, value).catch((e: unknown) => e)) as VaultError;
      expect(isVaultError(error)).toBe(true);
      const shape = { code: error.code, status: error.status, detail: error.detail, errors: error.errors };
      return JSON.parse(JSON.stringify(shape).replaceAll(id, '<id>')) as unknown;
    };
    const unknownId = '0b5a7b54-0000-4000-8000-000000000000';
    const outside = await answer({ a: `{{${plain}}}`, b: `{{${secret}}}` }, secret);
    expect(outside).toEqual(await answer({ a: `{{${plain}}}`, b: `{{${unknownId}}}` }, unknownId));
    expect(outside).toMatchObject({ status: 400, errors: { tokens: ['no token with id <id>'] } });
    const audited = await fx.vault.db
      .selectFrom('audit_logs')
      .select('id')
      .where('operation', '=', 'use')
      .execute();
    expect(audited).toEqual([]);
  });

  it('a token the caller may read but not use is a 403 (its existence is no news to it)', async () => {
    const readsAll = await keyPrincipal(
      ['token:read'],
      [
        {
          description: '',
          priority: 1,
          container: '/general/',
          permissions: ['token:use'],
          transform: 'reveal',
        },
      ],
    );
    expect(await codeOf(use(readsAll, { a: `{{${plain}}}` }))).toBe('ok');
    expect(await detailOf(use(readsAll, { a: `{{${secret}}}` }))).toMatch(/^FORBIDDEN 403: .*\/secret\//);
  });

  it('refuses a caller without the permission anywhere before looking any token up', async () => {
    expect(await codeOf(use(reader, { a: '{{ no-such-token }}' }))).toBe('FORBIDDEN');
    expect(await codeOf(use(reader, { a: `{{${plain}}}` }))).toBe('FORBIDDEN');
  });

  it(`refuses more than ${MAX_DETOKENIZED_TOKENS} distinct tokens before looking any up`, async () => {
    const many = Array.from({ length: MAX_DETOKENIZED_TOKENS + 1 }, (_, i) => `{{ t-${i} }}`);
    const errors = await fieldErrorsOf(use(user, many));
    expect(errors['args']?.[0]).toContain('at most 100');
    // 100 repeats of one token are one token.
    const repeats = Array.from({ length: 150 }, () => `{{${plain}}}`).join('');
    await expect(use(user, repeats)).resolves.toBe('John'.repeat(150));
  });

  it('shows data through the token:read transform for POST /detokenize (masked by default)', async () => {
    const out = await fx.services.detokenizer.detokenize(
      reader,
      { c: `{{${card}}}` },
      { permission: 'token:read' },
    );
    expect(JSON.stringify(out)).not.toContain('4242424242424242');
    expect(
      await codeOf(fx.services.detokenizer.detokenize(user, `{{${card}}}`, { permission: 'token:read' })),
    ).toBe('FORBIDDEN');
  });

  it('detokenizes plain text, objects as JSON text, and leaves strings without expressions alone', async () => {
    const op: Principal = { kind: 'operator', tenantId };
    await expect(
      fx.services.detokenizer.detokenizeText(op, `card={{${card}}}`, { permission: 'token:use' }),
    ).resolves.toBe(`card=${JSON.stringify(CARD)}`);
    await expect(use(op, { a: 'no expressions', b: '{ {not} }' })).resolves.toEqual({
      a: 'no expressions',
      b: '{ {not} }',
    });
    // A value without expressions comes back itself; within one that holds some, so do its parts
    // that hold none.
    const none = { a: [1, { b: 'x' }] };
    await expect(use(op, none)).resolves.toBe(none);
    const value = { kept: { deep: ['x', 2] }, list: [{ n: 1 }, `{{${plain}}}`], name: `{{${plain}}}` };
    const out = (await use(op, value)) as typeof value;
    expect(out).toEqual({ kept: { deep: ['x', 2] }, list: [{ n: 1 }, 'John'], name: 'John' });
    expect(out.kept).toBe(value.kept);
    expect(out.list).not.toBe(value.list);
    expect(out.list[0]).toBe(value.list[0]);
  });

  it('a failing filter is a 400 without token data and leaves no audit entry', async () => {
    const op: Principal = { kind: 'operator', tenantId };
    const before = await fx.vault.db.selectFrom('audit_logs').select('id').execute();
    const errors = await fieldErrorsOf(use(op, { a: `{{ ${card} | json: '$.*' }}` }));
    expect(JSON.stringify(errors)).not.toContain('4242');
    expect(Object.keys(errors)).toEqual(['args.a']);
    const after = await fx.vault.db.selectFrom('audit_logs').select('id').execute();
    expect(after.length).toBe(before.length);
  });
});

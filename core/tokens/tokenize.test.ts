import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codeOf, fieldErrorsOf } from '../test-support/services-fixture.ts';
import { appIn, countRows, openTokenFixture, rule } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';
import { isPlainObject } from '../validation/json-value.ts';
import type { TokenView } from './contract.ts';

describe('tokenize', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it('replaces primitives by ids and definitions by token views, keeping the shape', async () => {
    const body = {
      name: 'Ada Lovelace',
      age: 36,
      verified: true,
      nothing: null,
      card: {
        type: 'card',
        data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 },
      },
      nested: { ssn: { type: 'social_security_number', data: '123-45-6789' }, list: ['a', 2, { deep: 'b' }] },
      empty: { obj: {}, arr: [] },
    };
    const out = (await f.services.tokens.tokenize(f.app, body)) as {
      name: string;
      age: string;
      verified: string;
      nothing: null;
      card: TokenView;
      nested: { ssn: TokenView; list: [string, string, { deep: string }] };
      empty: { obj: object; arr: unknown[] };
    };
    expect(Object.keys(out)).toEqual(Object.keys(body));
    expect(out.nothing).toBeNull();
    expect(out.empty).toEqual({ obj: {}, arr: [] });
    expect(out.card).toMatchObject({
      type: 'card',
      data: { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 },
    });
    expect(out.nested.ssn).toMatchObject({ type: 'social_security_number', data: 'XXX-XX-6789' });
    const reveal = async (id: string) => (await f.services.tokens.get(f.operator, id)).data;
    expect(await reveal(out.name)).toBe('Ada Lovelace');
    expect(await reveal(out.age)).toBe(36);
    expect(await reveal(out.verified)).toBe(true);
    expect(await reveal(out.nested.list[0])).toBe('a');
    expect(await reveal(out.nested.list[1])).toBe(2);
    expect(await reveal(out.nested.list[2].deep)).toBe('b');
    expect(await reveal(out.card.id)).toEqual(body.card.data);
    expect(await countRows(f, 'tokens')).toBe(8);
  });

  it('answers a top-level definition, primitive or array in kind', async () => {
    const single = (await f.services.tokens.tokenize(f.app, {
      type: 'token',
      data: 'x',
      id: 'single',
    })) as TokenView;
    expect(single).toMatchObject({ id: 'single', type: 'token' });
    expect(typeof (await f.services.tokens.tokenize(f.app, 'just a value'))).toBe('string');
    const list = (await f.services.tokens.tokenize(f.app, [
      'a',
      { type: 'card_number', data: '4242424242424242' },
    ])) as [string, TokenView];
    expect(list[1].data).toBe('XXXXXXXXXXXX4242');
    expect(await f.services.tokens.tokenize(f.app, null)).toBeNull();
    // An object with `type` but no `data` is plain data: traversed, each member tokenized.
    const typed = (await f.services.tokens.tokenize(f.app, { type: 'visa', last4: '4242' })) as Record<
      string,
      string
    >;
    expect((await f.services.tokens.get(f.operator, typed.type!)).data).toBe('visa');
  });

  it('is all or nothing: one bad item fails the request with every problem under its path', async () => {
    await f.services.tokens.create(f.app, { data: 'before' });
    const tokens = await countRows(f, 'tokens');
    const audits = await countRows(f, 'audit_logs');
    const errors = await fieldErrorsOf(
      f.services.tokens.tokenize(f.app, {
        ok: 'fine',
        card: { type: 'card', data: { number: '1234' } },
        list: [
          { type: 'bank', data: { routing_number: '021000021' } },
          { type: 'token', data: 'x', expires_at: 'never' },
        ],
        typo: { type: 'passport', data: 'x' },
      }),
    );
    expect(Object.keys(errors).sort()).toEqual(
      ['card.data.number', 'list[0].data.account_number', 'list[1].expires_at', 'typo.type'].sort(),
    );
    expect(await countRows(f, 'tokens')).toBe(tokens);
    expect(await countRows(f, 'audit_logs')).toBe(audits);
  });

  it('rolls back everything on a failure found while writing (duplicate id, missing permission)', async () => {
    await f.services.tokens.create(f.app, { id: 'taken', data: 'x' });
    const tokens = await countRows(f, 'tokens');
    expect(
      await codeOf(f.services.tokens.tokenize(f.app, ['a', 'b', { type: 'token', id: 'taken', data: 'y' }])),
    ).toBe('CONFLICT');
    expect(await countRows(f, 'tokens')).toBe(tokens);
    const pciOnly = appIn(f.tenantId, { rules: [rule(1, '/pci/', ['token:create'], 'mask')] });
    expect(
      await codeOf(
        f.services.tokens.tokenize(pciOnly, { card: { type: 'card_number', data: '4242424242424242' } }),
      ),
    ).toBe('ok');
    expect(
      await codeOf(
        f.services.tokens.tokenize(pciOnly, {
          card: { type: 'card_number', data: '4242424242424242' },
          other: 'x',
        }),
      ),
    ).toBe('FORBIDDEN');
    expect(await countRows(f, 'tokens')).toBe(tokens + 1);
    // A duplicate id inside one request.
    expect(
      await codeOf(
        f.services.tokens.tokenize(f.app, [
          { type: 'token', id: 'twice', data: 'a' },
          { type: 'token', id: 'twice', data: 'b' },
        ]),
      ),
    ).toBe('CONFLICT');
    expect(await countRows(f, 'tokens')).toBe(tokens + 1);
  });

  it('limits tokens per request, values around them and nesting depth', async () => {
    expect(
      await fieldErrorsOf(
        f.services.tokens.tokenize(
          f.app,
          Array.from({ length: 1001 }, (_, i) => i),
        ),
      ),
    ).toEqual({ body: ['must hold at most 1000 tokens'] });
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i += 1) deep = [deep];
    expect(await fieldErrorsOf(f.services.tokens.tokenize(f.app, deep))).toEqual({
      body: ['must not be nested deeper than 32 levels'],
    });
    // Far more keys than any limit, nested or not, and nothing but nulls: refused by the count.
    const keys = (n: number, value: unknown) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
    for (const body of [keys(60_000, 'x'), { inner: keys(20_000, null) }, [keys(10_000, {})]]) {
      expect(await fieldErrorsOf(f.services.tokens.tokenize(f.app, body))).toEqual({
        body: ['must hold at most 10000 values outside token definitions'],
      });
    }
    // Definitions' data is not walked: a large one counts as one token.
    const big = (await f.services.tokens.tokenize(f.app, {
      t: { type: 'token', data: keys(20_000, 1) },
    })) as {
      t: { id: string };
    };
    expect(big.t.id).toBeTruthy();
    expect(await countRows(f, 'tokens')).toBe(1);
    const ok = (await f.services.tokens.tokenize(
      f.app,
      Array.from({ length: 1000 }, (_, i) => i),
    )) as string[];
    expect(new Set(ok).size).toBe(1000);
  });

  it('answers requests that arrive together as if each were written alone', async () => {
    const tokens = await countRows(f, 'tokens');
    const audits = await countRows(f, 'audit_logs');
    const pciOnly = appIn(f.tenantId, { rules: [rule(1, '/pci/', ['token:create'], 'mask')] });
    const card = { type: 'card_number', data: '4242424242424242' };
    const [plain, forbidden, masked, chosen, many] = await Promise.all([
      f.services.tokens.tokenize(f.app, ['a', 'b']),
      codeOf(f.services.tokens.tokenize(pciOnly, { card, other: 'x' })),
      f.services.tokens.tokenize(pciOnly, { card }),
      f.services.tokens.tokenize(f.app, { type: 'token', id: 'chosen', data: 'c' }),
      f.services.tokens.tokenize(
        f.app,
        Array.from({ length: 60 }, (_, i) => `v${i}`),
      ),
    ]);
    expect(forbidden).toBe('FORBIDDEN');
    expect((masked as { card: TokenView }).card).toMatchObject({
      type: 'card_number',
      data: 'XXXXXXXXXXXX4242',
    });
    expect((chosen as TokenView).id).toBe('chosen');
    const ids = [...(plain as string[]), ...(many as string[])];
    expect(new Set(ids).size).toBe(62);
    const values = await Promise.all(
      ids.map(async (id) => (await f.services.tokens.get(f.operator, id)).data),
    );
    expect(values).toEqual(['a', 'b', ...Array.from({ length: 60 }, (_, i) => `v${i}`)]);
    expect(await countRows(f, 'tokens')).toBe(tokens + 64);
    // One create entry per token written (and one read entry per token read back above).
    expect(await countRows(f, 'audit_logs')).toBe(audits + 64 + 62);
  });

  it('needs token:create', async () => {
    expect(
      await codeOf(f.services.tokens.tokenize(appIn(f.tenantId, { permissions: ['token:read'] }), 'x')),
    ).toBe('FORBIDDEN');
  });
});

describe('tokenize property: same shape, every id resolves to its value', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await openTokenFixture();
  });
  afterAll(() => f.close());

  const hasDefinition = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(hasDefinition);
    if (isPlainObject(value)) {
      if (Object.hasOwn(value, 'type') && Object.hasOwn(value, 'data')) return true;
      return Object.values(value).some(hasDefinition);
    }
    return false;
  };

  /** Walks input and output together: same keys and lengths; each primitive became an id. */
  const pairs = (input: unknown, output: unknown, acc: Array<[string, unknown]>): void => {
    if (input === null) {
      expect(output).toBeNull();
    } else if (Array.isArray(input)) {
      expect(Array.isArray(output)).toBe(true);
      const out = output as unknown[];
      expect(out).toHaveLength(input.length);
      input.forEach((item, i) => pairs(item, out[i], acc));
    } else if (isPlainObject(input)) {
      expect(isPlainObject(output)).toBe(true);
      const out = output as Record<string, unknown>;
      expect(Object.keys(out)).toEqual(Object.keys(input));
      for (const key of Object.keys(input)) pairs(input[key], out[key], acc);
    } else {
      expect(typeof output).toBe('string');
      acc.push([output as string, input]);
    }
  };

  it('holds for any JSON payload', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (payload) => {
        fc.pre(!hasDefinition(payload));
        const output = await f.services.tokens.tokenize(f.app, payload);
        const found: Array<[string, unknown]> = [];
        pairs(payload, output, found);
        for (const [id, value] of found) {
          // Data is stored as JSON, where -0 is 0.
          expect((await f.services.tokens.get(f.operator, id)).data).toEqual(
            JSON.parse(JSON.stringify(value)),
          );
        }
      }),
      { numRuns: 100 },
    );
  });
});

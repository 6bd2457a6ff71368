import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_MASK_BYTES,
  MAX_MASK_LEAVES,
  MAX_TOKEN_EXPRESSION_BYTES,
  REQUEST_EXPRESSION_LIMITS,
  STORED_MASK_LIMITS,
  TOKEN_EXPRESSION_LIMITS,
  requestBudget,
  runWithRequestBudget,
} from '../expressions/index.ts';
import { isVaultError } from '../errors/catalogue.ts';
import { fieldErrorsOf } from '../test-support/services-fixture.ts';
import { MAX_DATA_DEPTH } from '../validation/json-value.ts';
import { countRows, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

const EMPTY_LOOP = '{% for i in (1..49000) %}{% endfor %}';
const HMAC_LOOP = "{% for i in (1..49000) %}{{ data | hmac: 'sha-512', 'key' }}{% endfor %}";
/** About 2,000 steps over a list of 40: cheap alone, too dear to store as a mask. */
const PAIRS = '{% for a in data.list %}{% for b in data.list %}{% endfor %}{% endfor %}';
const LIST = Array.from({ length: 40 }, (_, i) => i);

function leaves(count: number, leaf: string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, leaf]));
}

function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
}

describe('expression costs are checked when a token is written', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it(`refuses a mask of more than ${MAX_MASK_LEAVES} leaves or ${MAX_MASK_BYTES} bytes, storing nothing`, async () => {
    const started = performance.now();
    const errors = await fieldErrorsOf(
      f.services.tokens.create(f.app, { data: 'x', mask: leaves(1000, EMPTY_LOOP) }),
    );
    expect(errors).toEqual({
      mask: [`must have at most ${MAX_MASK_LEAVES} leaves (expressions and literals)`],
    });
    // Refused by shape, before any loop ran (a generous bound: the attack took 33 s unbounded).
    expect(performance.now() - started).toBeLessThan(5000);
    expect(
      await fieldErrorsOf(f.services.tokens.create(f.app, { data: 'x', mask: leaves(100, HMAC_LOOP) })),
    ).toEqual({ mask: [`must be at most ${MAX_MASK_BYTES} bytes of expressions in total`] });
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it('refuses a mask whose leaves together cost more than a read may, storing nothing', async () => {
    // Each within the leaf and size caps (2 KiB for a whole mask).
    for (const mask of [leaves(50, EMPTY_LOOP), { a: PAIRS }]) {
      const errors = await fieldErrorsOf(f.services.tokens.create(f.app, { data: { list: LIST }, mask }));
      expect(Object.values(errors).flat()[0]).toMatch(/^the mask's expressions exceeded their total/);
    }
    // A loop whose cost is plain from the expression is refused before anything runs.
    const errors = await fieldErrorsOf(
      f.services.tokens.create(f.app, { data: { list: LIST }, mask: leaves(25, HMAC_LOOP) }),
    );
    expect(Object.values(errors).flat()[0]).toMatch(/more than the render step limit of 100000$/);
    // The same expression is fine where it is not read back: as a search index.
    const { token } = await f.services.tokens.create(f.app, {
      data: { list: LIST },
      search_indexes: [`${PAIRS}x`],
    });
    expect(token.id).toBeTruthy();
    expect(await countRows(f, 'tokens')).toBe(1);
  });

  it('refuses the same mask on update, leaving the token unchanged', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: { list: [1] },
      mask: { a: PAIRS },
    });
    // Growing the data makes the stored mask too dear: the data change is refused.
    const dataErrors = await fieldErrorsOf(
      f.services.tokens.update(f.app, token.id, { data: { list: LIST } }),
    );
    expect(dataErrors['mask.a']?.[0]).toMatch(/^the mask's expressions exceeded/);
    const maskErrors = await fieldErrorsOf(
      f.services.tokens.update(f.app, token.id, { mask: leaves(MAX_MASK_LEAVES, HMAC_LOOP) }),
    );
    expect(Object.keys(maskErrors)).not.toHaveLength(0);
    const stored = await f.services.tokens.get(f.operator, token.id);
    expect(stored.data).toEqual({ list: [1] });
    expect(stored.mask).toEqual({ a: PAIRS });
  });

  it('gives every token one budget for all its expressions', async () => {
    const loop = `{% for i in (1..${TOKEN_EXPRESSION_LIMITS.steps / 4}) %}{% endfor %}x`;
    // Each index alone fits; five of them do not.
    const errors = await fieldErrorsOf(
      f.services.tokens.create(f.app, { data: 'x', search_indexes: [loop, loop, loop, loop, loop] }),
    );
    expect(errors['search_indexes[4]']).toEqual([
      `the token's expressions exceeded their total of ${TOKEN_EXPRESSION_LIMITS.steps} steps`,
    ]);
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it('evaluates an alias id expression once before the write, under the token budget', async () => {
    const errors = await fieldErrorsOf(
      f.services.tokens.create(f.app, { data: 'x', id: `{% for i in (1..30000) %}{% endfor %}{{ data }}` }),
    );
    expect(errors['id']).toEqual([
      `the token's expressions exceeded their total of ${TOKEN_EXPRESSION_LIMITS.steps} steps`,
    ]);
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it(`caps all expressions of a token at ${MAX_TOKEN_EXPRESSION_BYTES} bytes together`, async () => {
    const long = `{{ data }}${' '.repeat(4000)}`;
    const errors = await fieldErrorsOf(
      f.services.tokens.create(f.app, {
        data: 'x',
        mask: { a: '{{ data }}' },
        fingerprint_expression: `{{ data }}${' '.repeat(390)}`,
        search_indexes: [long, long, long, long],
      }),
    );
    expect(errors).toEqual({
      body: [
        `the token's expressions (mask, fingerprint_expression, search_indexes, id) must be at most ${MAX_TOKEN_EXPRESSION_BYTES} bytes together`,
      ],
    });
  });

  it('bounds tokenize the same way, for each token', async () => {
    const errors = await fieldErrorsOf(
      f.services.tokens.tokenize(f.app, { a: { type: 'token', data: 'x', mask: leaves(50, EMPTY_LOOP) } }),
    );
    expect(errors['a.mask.f0']?.[0]).toMatch(/^the mask's expressions exceeded/);
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it('stops a tokenize once the request budget is spent, with one 400 and nothing stored', async () => {
    const dear = { a: `{% for i in (1..${STORED_MASK_LIMITS.steps - 50}) %}{% endfor %}` };
    const body = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`t${i}`, { type: 'token', data: `v${i}`, mask: dear }]),
    );
    const budget = requestBudget();
    const error = await runWithRequestBudget(budget, () => f.services.tokens.tokenize(f.app, body)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isVaultError(error, 'VALIDATION_FAILED') && error.message).toBe(
      `The request was refused: this request's expressions exceeded their total of ${REQUEST_EXPRESSION_LIMITS.steps} steps.`,
    );
    expect(budget.used.steps).toBeLessThanOrEqual(REQUEST_EXPRESSION_LIMITS.steps);
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it('charges parsing new expressions to the request budget', async () => {
    // 100 distinct 4,000-byte search indexes: cheap to evaluate, dear to parse.
    const body = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [
        `t${i}`,
        { type: 'token', data: 'x', search_indexes: [`{{ data }}${String(i).padEnd(3990, '.')}`] },
      ]),
    );
    const budget = requestBudget();
    const error = await runWithRequestBudget(budget, () => f.services.tokens.tokenize(f.app, body)).then(
      () => undefined,
      (e: unknown) => e,
    );
    const messages = isVaultError(error, 'VALIDATION_FAILED') ? Object.values(error.errors ?? {}).flat() : [];
    // The first ~50 parse within the budget; every later one is refused without being parsed.
    expect(messages.length).toBeGreaterThan(10);
    expect(new Set(messages)).toEqual(
      new Set([
        `this request's expressions exceeded their total of ${REQUEST_EXPRESSION_LIMITS.steps} steps`,
      ]),
    );
    expect(budget.used.steps).toBeLessThanOrEqual(REQUEST_EXPRESSION_LIMITS.steps);
    expect(await countRows(f, 'tokens')).toBe(0);
  });

  it('affords the default fingerprint of data that fills a 1 MiB body', async () => {
    const data = { items: Array.from({ length: 90_000 }, (_, i) => `item-${i}`) };
    expect(JSON.stringify(data).length).toBeGreaterThan(1_000_000);
    const budget = requestBudget();
    const { token } = await runWithRequestBudget(budget, () => f.services.tokens.create(f.app, { data }));
    expect(token.fingerprint).toBeTruthy();
  });

  it('still stores an ordinary 100-leaf mask', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: { n: '4242424242424242' },
      mask: leaves(MAX_MASK_LEAVES, '{{ data.n | last4 }}'),
    });
    const read = await f.services.tokens.get(f.app, token.id);
    expect(Object.keys(read.data as object)).toHaveLength(MAX_MASK_LEAVES);
    expect(STORED_MASK_LIMITS.steps).toBeGreaterThanOrEqual(MAX_MASK_LEAVES * 5);
  });
});

describe('token data shape', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  const tooDeep = `must not be nested deeper than ${MAX_DATA_DEPTH} levels`;

  it(`refuses data nested deeper than ${MAX_DATA_DEPTH} levels on create, tokenize and update`, async () => {
    // With a custom fingerprint expression this used to overflow the stack (a 500).
    const deep = nested(5000);
    expect(
      await fieldErrorsOf(
        f.services.tokens.create(f.app, { data: deep, fingerprint_expression: '{{ data | stringify }}' }),
      ),
    ).toEqual({ data: [tooDeep] });
    expect(
      await fieldErrorsOf(f.services.tokens.create(f.app, { data: nested(MAX_DATA_DEPTH + 1) })),
    ).toEqual({
      data: [tooDeep],
    });
    expect(
      await fieldErrorsOf(
        f.services.tokens.tokenize(f.app, { t: { type: 'token', data: nested(MAX_DATA_DEPTH + 1) } }),
      ),
    ).toEqual({ 't.data': [tooDeep] });
    const { token } = await f.services.tokens.create(f.app, { data: nested(MAX_DATA_DEPTH) });
    expect(
      await fieldErrorsOf(f.services.tokens.update(f.app, token.id, { data: { b: nested(MAX_DATA_DEPTH) } })),
    ).toEqual({ data: [tooDeep] });
    expect((await f.services.tokens.get(f.operator, token.id)).data).toEqual(nested(MAX_DATA_DEPTH));
  });

  it('refuses non-finite numbers rather than storing them as null', async () => {
    expect(
      await fieldErrorsOf(f.services.tokens.create(f.app, { data: { a: Number.POSITIVE_INFINITY } })),
    ).toEqual({ data: ['must not contain non-finite numbers'] });
    expect(await countRows(f, 'tokens')).toBe(0);
  });
});

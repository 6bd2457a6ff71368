import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { fieldErrorsThrownBy } from '../test-support/field-errors.ts';
import {
  ExpressionBudget,
  FILTER_STEPS,
  MAX_MASK_LEAVES,
  REQUEST_EXPRESSION_LIMITS,
  STORED_MASK_LIMITS,
  TOKEN_EXPRESSION_LIMITS,
  evaluate,
  evaluateMask,
  evaluateSearchIndexes,
  requestBudget,
  runWithRequestBudget,
  validateMask,
} from './index.ts';
import { FILTER_STEPS_PER_ELEMENT } from './render-meter.ts';
import { HMAC_STEPS } from './filters.ts';

const EMPTY_LOOP = '{% for i in (1..49000) %}{% endfor %}';
const HMAC_LOOP = "{% for i in (1..49000) %}{{ data | hmac: 'sha-512', 'key' }}{% endfor %}";

function maskOfLeaves(count: number, leaf: string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, leaf]));
}

describe('mask leaves', () => {
  it(`refuses a mask of more than ${MAX_MASK_LEAVES} leaves, without parsing them`, () => {
    expect(validateMask(maskOfLeaves(MAX_MASK_LEAVES, '{{ data }}'))).toEqual({});
    expect(validateMask(maskOfLeaves(1000, EMPTY_LOOP))).toEqual({
      mask: [`must have at most ${MAX_MASK_LEAVES} leaves (expressions and literals)`],
    });
    // Literals count too: they are part of every view the mask produces.
    expect(Object.keys(validateMask(Array.from({ length: MAX_MASK_LEAVES + 1 }, () => 1)))).toEqual(['mask']);
  });
});

describe('a stored mask is evaluated under one small budget for all its leaves', () => {
  it('stops 100 leaves of empty loops after the budget, not after 100 loops', () => {
    const budget = new ExpressionBudget(STORED_MASK_LIMITS, "the mask's expressions");
    const errors = fieldErrorsThrownBy(() =>
      evaluateMask(maskOfLeaves(100, EMPTY_LOOP), 'x', 'mask', budget),
    );
    // The range allocates as much memory as it has steps: either measure may run out first.
    expect(errors['mask.f0']?.[0]).toMatch(/^the mask's expressions exceeded their total/);
    expect(Object.keys(errors)).toHaveLength(100);
    // Every later leaf fails at once: the work done is about the budget, not 100 loops.
    expect(budget.used.steps).toBeLessThanOrEqual(STORED_MASK_LIMITS.steps);
    expect(budget.used.memory).toBeLessThanOrEqual(STORED_MASK_LIMITS.memory);
  });

  it('is the default budget of evaluateMask (what one read may cost)', () => {
    const loop = '{% for a in data %}{% for b in data %}{% endfor %}{% endfor %}';
    const errors = fieldErrorsThrownBy(() =>
      evaluateMask(
        { a: loop },
        Array.from({ length: 40 }, (_, i) => i),
      ),
    );
    expect(errors['mask.a']).toEqual([
      `the mask's expressions exceeded their total of ${STORED_MASK_LIMITS.steps} steps`,
    ]);
    expect(evaluateMask({ a: '{{ data | reveal_last: 4 }}', b: 1 }, '4242424242424242')).toEqual({
      a: 'XXXXXXXXXXXX4242',
      b: 1,
    });
  });

  it('counts a copy of the whole data as memory', () => {
    const big = 'x'.repeat(STORED_MASK_LIMITS.memory + 1);
    expect(fieldErrorsThrownBy(() => evaluateMask('{{ data }}', big))['mask']).toEqual([
      `the mask's expressions exceeded their total memory of ${STORED_MASK_LIMITS.memory} units`,
    ]);
    expect(fieldErrorsThrownBy(() => evaluateMask('{{ data }}', { a: big }))['mask']).toHaveLength(1);
  });
});

describe('heavy filters', () => {
  it('charges hmac more than a plain filter', () => {
    const plain = new ExpressionBudget({ steps: 1e9, memory: 1e9, ms: 1e9 }, 'test');
    const hmac = new ExpressionBudget({ steps: 1e9, memory: 1e9, ms: 1e9 }, 'test');
    evaluate('{% for i in (1..100) %}{{ data | upcase }}{% endfor %}', { data: 'abc' }, 'e', plain);
    evaluate(
      "{% for i in (1..100) %}{{ data | hmac: 'sha-256', 'k' }}{% endfor %}",
      { data: 'abc' },
      'e',
      hmac,
    );
    expect(hmac.used.steps - plain.used.steps).toBe(100 * HMAC_STEPS);
    expect(plain.used.steps).toBeGreaterThanOrEqual(100 * (FILTER_STEPS + 1));
  });

  it('stops an hmac loop after a fraction of the steps of a plain loop', () => {
    const budget = new ExpressionBudget(STORED_MASK_LIMITS, "the mask's expressions");
    fieldErrorsThrownBy(() => evaluate(HMAC_LOOP, { data: '4242424242424242' }, 'mask', budget));
    expect(budget.used.steps).toBeLessThanOrEqual(STORED_MASK_LIMITS.steps + HMAC_STEPS + FILTER_STEPS);
  });

  it('charges standard filters by the size of the array they walk', () => {
    const list = Array.from({ length: 10_000 }, (_, i) => ({ n: i % 7 }));
    const unbounded = (): ExpressionBudget =>
      new ExpressionBudget({ steps: 1e9, memory: 1e9, ms: 1e9 }, 'test');
    const walked = unbounded();
    const half = list.slice(0, 5000);
    evaluate("{{ data | map: 'n' | size }}", { data: half }, 'e', walked);
    expect(walked.used.steps).toBeGreaterThanOrEqual(half.length * FILTER_STEPS_PER_ELEMENT);
    // Filters that do not walk their input stay cheap.
    const cheap = unbounded();
    evaluate('{{ data | size }}{{ data | first }}', { data: list }, 'e', cheap);
    expect(cheap.used.steps).toBeLessThan(20);
    // A where_exp over 10,000 items is refused before it runs, by steps, not after by time.
    const token = new ExpressionBudget(TOKEN_EXPRESSION_LIMITS, "the token's expressions");
    expect(
      fieldErrorsThrownBy(() =>
        evaluate("{{ data | where_exp: 'x', 'x.n > 3' | size }}", { data: list }, 'e', token),
      ),
    ).toEqual({ e: ['the expression exceeded the render step limit'] });
    // Custom text filters are linear and charge their own work: the default fingerprint of a large
    // array stays affordable.
    const fingerprint = new ExpressionBudget(TOKEN_EXPRESSION_LIMITS, "the token's expressions");
    expect(typeof evaluate('{{ data | stringify }}', { data: list }, 'e', fingerprint)).toBe('string');
  });

  it('charges a scanning JSONPath by the size of its input', () => {
    const list = Array.from({ length: 5000 }, (_, i) => i);
    const budget = new ExpressionBudget({ steps: 1e9, memory: 1e9, ms: 1e9 }, 'test');
    evaluate("{{ data | json: '$[?(@ == 7)]' }}", { data: list }, 'e', budget);
    expect(budget.used.steps).toBeGreaterThan(list.length);
  });
});

describe('the request budget', () => {
  it('is shared by every expression evaluated in the request', () => {
    const budget = requestBudget();
    const loop = '{% for i in (1..9000) %}{% endfor %}x';
    const one = new ExpressionBudget(REQUEST_EXPRESSION_LIMITS, 'one');
    evaluateSearchIndexes([loop], 'x', 'search_indexes', one);
    const outcome = runWithRequestBudget(budget, () => {
      let ok = 0;
      for (let i = 0; i < 20; i += 1) {
        try {
          evaluateSearchIndexes([loop], 'x');
          ok += 1;
        } catch (error) {
          if (!isVaultError(error, 'VALIDATION_FAILED')) throw error;
          return { ok, errors: error.errors };
        }
      }
      return { ok, errors: undefined };
    });
    // About 9,000 steps each: the twelfth no longer fits in 100,000.
    expect(outcome.ok).toBe(Math.floor(REQUEST_EXPRESSION_LIMITS.steps / one.used.steps));
    expect(outcome.errors).toEqual({
      'search_indexes[0]': [
        `this request's expressions exceeded their total of ${REQUEST_EXPRESSION_LIMITS.steps} steps`,
      ],
    });
  });

  it('is not charged outside the request', () => {
    const budget = requestBudget();
    runWithRequestBudget(budget, () => evaluate('{{ data }}', { data: 1 }));
    const before = budget.used.steps;
    evaluate('{% for i in (1..100) %}{% endfor %}', { data: 1 });
    expect(before).toBeGreaterThan(0);
    expect(budget.used.steps).toBe(before);
  });

  it('has a time backstop, counted across renders', () => {
    const budget = new ExpressionBudget({ steps: 1e9, memory: 1e9, ms: 0 }, 'the test');
    expect(
      fieldErrorsThrownBy(() => evaluate('{% for i in (1..50000) %}{% endfor %}', { data: 1 }, 'e', budget)),
    ).toEqual({ e: ['the test exceeded their total time of 0 ms'] });
    expect(budget.used.ms).toBeGreaterThan(0);
  });
});

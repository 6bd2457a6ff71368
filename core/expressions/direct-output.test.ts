/**
 * Direct whole outputs (direct-output.ts) against liquidjs: the same value or error, and the same
 * steps and memory charged to the budgets, for every expression the vault ships and for generated
 * ones, over seeded random data. DIRECT_OUTPUT_SEED=<seed> replays a run.
 */
import { Drop } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../backends/embedded/test-support/power-loss-fs.ts';
import { isVaultError } from '../errors/catalogue.ts';
import { TOKEN_TYPES } from '../tokens/token-types.ts';
import { ExpressionBudget } from './budget.ts';
import type { BudgetLimits } from './budget.ts';
import { directOutputOf } from './direct-output.ts';
import { ExpressionEngine } from './engine.ts';
import type { ExpressionEngineOptions } from './engine.ts';
import { CUSTOM_FILTERS } from './filters.ts';

const SEED = Number(process.env.DIRECT_OUTPUT_SEED ?? 20_260_611);

/** Every leaf of a mask. */
function leaves(mask: unknown): string[] {
  if (typeof mask === 'string') return [mask];
  if (mask === null || typeof mask !== 'object') return [];
  return Object.values(mask).flatMap(leaves);
}

/** Every expression of the token types: masks, fingerprints, default search indexes. */
const SHIPPED = [
  ...new Set(
    Object.values(TOKEN_TYPES).flatMap((t) => [
      ...leaves(t.mask),
      t.fingerprintExpression,
      ...t.defaultSearchIndexes,
    ]),
  ),
];

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

const NAMES = [
  'number',
  'expiration_month',
  'expiration_year',
  'routing_number',
  'account_number',
  'a',
  'length',
  'constructor',
  '__proto__',
  'toString',
  'toLiquid',
  'valueOf',
];

/** Text a mask may meet: digits, separators, letters, other scripts, surrogate pairs, empty. */
function randomText(random: Random): string {
  const units = ['0', '1', '4', '9', '-', ' ', '/', 'a', 'Z', 'é', '٣', '漢', '😀', "'", '"', '\\', '.'];
  const length = pick(random, [0, 1, 3, 4, 5, 9, 16, 19, 40, 300]);
  let text = '';
  for (let i = 0; i < length; i += 1)
    text += random() < 0.7 ? pick(random, units.slice(0, 4)) : pick(random, units);
  return text;
}

/** JSON-shaped data, sometimes with own `__proto__`, `toLiquid` or `length` members (via JSON.parse). */
function randomData(random: Random, depth = 0): unknown {
  const kind = depth > 2 ? Math.floor(random() * 4) : Math.floor(random() * 7);
  switch (kind) {
    case 0:
      return randomText(random);
    case 1:
      return pick(random, [0, 4, 12, 2030, -1, 1.5, 4242424242424242, 1e21]);
    case 2:
      return pick(random, [true, false, null]);
    case 3:
      return randomText(random);
    case 4:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomData(random, depth + 1));
    default: {
      const members = Math.floor(random() * 5);
      const entries: string[] = [];
      for (let i = 0; i < members; i += 1) {
        entries.push(
          `${JSON.stringify(pick(random, NAMES))}:${JSON.stringify(randomData(random, depth + 1))}`,
        );
      }
      return JSON.parse(`{${entries.join(',')}}`) as unknown;
    }
  }
}

const FILTER_ARGS: Readonly<Record<string, readonly string[]>> = {
  reveal_last: ['', ': 4', ': 0', ': 2', ': 4, "#"', ": 4, 'xx'", ": '3'", ': 1000001'],
  reveal: ['', ': 1, 2', ': 0, 4, "*"', ": '2', '2'"],
  pad_left: [': 6', ": 6, '0'", ': 6, "ab"'],
  pad_right: [': 6', ": 6, '0'"],
  card_bin: ['', ': 6', ': 8'],
  card_mask: ['', ': 4, 4', ": 6, 4, '#'"],
  card_exp: ['', ": 'mm/yy'", ": 'MM-YYYY'"],
  alias_preserve_format: ['', ': 0, 4', ': 2, 2'],
  alias_preserve_length: ['', ': 0, 4', ': 2, 2'],
  json: [": '$.a'", ": '$..a'", ": '$[0]'"],
  hmac: [": 'secret'", ": 'secret', 'sha-512'", ": 'k', 'md5'"],
};

function randomExpression(random: Random): string {
  const space = () => pick(random, ['', ' ', ' ', '  ']);
  const path = Array.from({ length: Math.floor(random() * 3) }, () => `.${pick(random, NAMES)}`).join('');
  const names = Object.keys(CUSTOM_FILTERS);
  const filters = Array.from({ length: Math.floor(random() * 3) }, () => {
    const name = pick(random, names);
    return `${space()}|${space()}${name}${pick(random, FILTER_ARGS[name] ?? [''])}`;
  }).join('');
  return `{{${space()}data${path}${filters}${space()}}}`;
}

/** A generator whose state is reset before each render, so both engines draw the same numbers. */
function replayableRandom(): { reset(seed: number): void; randomInt(max: number): number } {
  let random = seededRandom(0);
  return {
    reset: (seed) => (random = seededRandom(seed)),
    randomInt: (max) => Math.floor(random() * max),
  };
}

interface Outcome {
  readonly value?: unknown;
  readonly error?: unknown;
  readonly token: { readonly steps: number; readonly memory: number };
  readonly request: { readonly steps: number; readonly memory: number };
}

function counters(budget: ExpressionBudget): { steps: number; memory: number } {
  const { steps, memory } = budget.used;
  return { steps, memory };
}

function outcome(
  engine: ExpressionEngine,
  expression: string,
  data: unknown,
  limits: { readonly token: BudgetLimits; readonly request: BudgetLimits },
): Outcome {
  const request = new ExpressionBudget(limits.request, 'request');
  const token = new ExpressionBudget(limits.token, 'token', request);
  try {
    const value = engine.evaluate(expression, { data }, 'mask', token);
    return { value, token: counters(token), request: counters(request) };
  } catch (error) {
    if (!isVaultError(error, 'VALIDATION_FAILED')) throw error;
    return { error: error.errors, token: counters(token), request: counters(request) };
  }
}

const LOOSE = {
  token: { steps: 500, memory: 20_000, ms: 60_000 },
  request: { steps: 50_000, memory: 4_000_000, ms: 60_000 },
};
const TIGHT = {
  token: { steps: 6, memory: 12, ms: 60_000 },
  request: { steps: 9, memory: 30, ms: 60_000 },
};

function engines(options: ExpressionEngineOptions = {}) {
  const random = replayableRandom();
  const base = { ...options, random: random.randomInt, renderTimeLimitMs: 60_000 };
  const direct = new ExpressionEngine(base);
  const liquid = new ExpressionEngine({ ...base, directOutputs: false });
  return {
    random,
    direct,
    liquid,
    /** Renders `expression` both ways from the same random draws (round `i`) and compares. */
    expectSameOutcome(
      i: number,
      expression: string,
      data: unknown,
      limits: { readonly token: BudgetLimits; readonly request: BudgetLimits },
    ): void {
      random.reset(i);
      const expected = outcome(liquid, expression, data, limits);
      random.reset(i);
      expect(outcome(direct, expression, data, limits), `${expression} (DIRECT_OUTPUT_SEED=${SEED})`).toEqual(
        expected,
      );
    },
  };
}

describe('direct outputs', () => {
  it('cover every expression the vault ships except the few filters of liquidjs itself', () => {
    const notDirect = SHIPPED.filter((e) => directOutputOf(e) === null);
    expect(notDirect.sort()).toEqual([
      "{{ data | remove: '-' }}",
      '{{ data.account_number }}|{{ data.routing_number }}',
    ]);
    expect(directOutputOf('{{ data.number | reveal_last: 4 }}')).toEqual({
      path: ['number'],
      filters: [{ name: 'reveal_last', args: [4] }],
    });
    expect(directOutputOf(`{{data|reveal:1,2,'*'}}`)).toEqual({
      path: [],
      filters: [{ name: 'reveal', args: [1, 2, '*'] }],
    });
  });

  it.each([
    '{{ data.size }}',
    '{{ data.first }}',
    '{{ data.a.last }}',
    "{{ data | remove: '-' }}",
    '{{ data | upcase }}',
    '{{ data | reveal_last: n }}',
    '{{ data | reveal_last: 04 }}',
    '{{ data | reveal_last: -4 }}',
    '{{ data | reveal_last: 4.0 }}',
    "{{ data | pad_left: 4, '\\'' }}",
    "{{ data | pad_left: 4, '}' }}",
    '{{ data["a"] }}',
    '{{ data[0] }}',
    '{{ data.a-b }}',
    '{{- data -}}',
    '{{\tdata }}',
    '{{ metadata.a }}',
    ' {{ data }}',
    '{{ data }}{{ data }}',
    '{{ data | reveal_last: a: 1 }}',
  ])('leaves %s to liquidjs', (expression) => {
    expect(directOutputOf(expression)).toBeNull();
  });

  it('render as liquidjs does where data holds more than JSON (toLiquid, a Drop, a function)', () => {
    const { direct, liquid } = engines();
    class Shown extends Drop {
      override valueOf(): string {
        return 'drop';
      }
    }
    const values = [
      { a: { toLiquid: () => ({ b: 'shown' }) } },
      { toLiquid: () => ({ a: 'shown' }) },
      { a: new Shown() },
      new Shown(),
      { a: () => 'called' },
    ];
    for (const data of values) {
      for (const expression of [
        '{{ data }}',
        '{{ data.a }}',
        '{{ data.a.b }}',
        '{{ data.a | reveal_last: 2 }}',
      ]) {
        expect(outcome(direct, expression, data, LOOSE), expression).toEqual(
          outcome(liquid, expression, data, LOOSE),
        );
      }
    }
  });

  describe.each([
    ['loose budgets', LOOSE],
    ['tight budgets', TIGHT],
  ])(`render as liquidjs does, with %s (DIRECT_OUTPUT_SEED=${SEED})`, (_name, limits) => {
    it('every expression the vault ships, over random data', () => {
      const random = seededRandom(SEED);
      const { expectSameOutcome } = engines();
      for (let i = 0; i < 400; i += 1) {
        const data =
          i % 4 === 0
            ? { number: randomText(random), account_number: randomText(random) }
            : randomData(random);
        for (const expression of SHIPPED) expectSameOutcome(i, expression, data, limits);
      }
    });

    it('generated expressions, over random data', () => {
      const random = seededRandom(SEED + 1);
      const { expectSameOutcome } = engines();
      let directShapes = 0;
      for (let i = 0; i < 1500; i += 1) {
        const expression = randomExpression(random);
        if (directOutputOf(expression) !== null) directShapes += 1;
        const data = randomData(random);
        expectSameOutcome(i, expression, data, limits);
      }
      // The generator mostly makes direct shapes, so the comparison is mostly of direct renders.
      expect(directShapes).toBeGreaterThan(1000);
    });
  });

  it('charge the render limits of the engine as liquidjs does', () => {
    for (const options of [
      { maxRenderSteps: 2 },
      { maxRenderSteps: 5 },
      { memoryLimit: 3 },
      { memoryLimit: 20 },
    ]) {
      const { direct, liquid } = engines(options);
      for (const expression of SHIPPED) {
        const data = { number: '4242424242424242', expiration_month: 12 };
        for (const value of [data, '4242-4242-4242', 'x'.repeat(200)]) {
          expect(
            outcome(direct, expression, value, LOOSE),
            `${expression} ${JSON.stringify(options)}`,
          ).toEqual(outcome(liquid, expression, value, LOOSE));
        }
      }
    }
  });
});

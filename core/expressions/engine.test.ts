/**
 * The engine: whole-object output versus mixed templates, the parsed-template LRU, size and work
 * limits, the missing file system, and error messages that never carry token data.
 */
import { describe, expect, it, vi } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { fieldErrorsThrownBy } from '../test-support/field-errors.ts';
import { ExpressionBudget } from './budget.ts';
import { LruCache } from './lru.ts';
import {
  ExpressionEngine,
  MAX_EXPRESSION_BYTES,
  REMOVED_TAGS,
  evaluate,
  validateExpression,
} from './index.ts';

const DATA = {
  n: 5,
  flag: true,
  nothing: null,
  list: [1, 'two', { three: 3 }],
  bicycle: { color: 'red', price: 19.95 },
  text: 'hello',
};

describe('whole-object output (an object or array renders as JSON)', () => {
  const cases: Array<[string, unknown]> = [
    ['{{ data.bicycle }}', { color: 'red', price: 19.95 }],
    ['{{ data.list }}', [1, 'two', { three: 3 }]],
    ['{{ data.n }}', 5],
    ['{{ data.flag }}', true],
    ['{{ data.nothing }}', null],
    ['{{ data.nonexistent }}', null],
    ['{{ data.bicycle.missing.deeper }}', null],
    ['{{ data.text }}', 'hello'],
    ['{{data.n}}', 5],
    ['{{- data.n -}}', 5],
    ['{{ data.n | plus: 1 }}', 6],
    ['{{ data }}', DATA],
  ];
  it.each(cases)('%s yields the value itself', (expression, expected) => {
    expect(evaluate(expression, { data: DATA })).toEqual(expected);
  });

  const mixed: Array<[string, string]> = [
    ['n={{ data.n }}', 'n=5'],
    ['{{ data.n }}{{ data.n }}', '55'],
    [' {{ data.n }}', ' 5'],
    ['{{ data.n }}\n', '5\n'],
    ['{% if data.flag %}{{ data.n }}{% endif %}', '5'],
    ['{{ data.nothing }}|{{ data.missing }}', '|'],
    ['card: {{ data.bicycle }}', 'card: {"color":"red","price":19.95}'],
    ['{{ data.list | join: "," }}', '1,two,[object Object]'],
    ['{% for x in data.list %}[{{ x }}]{% endfor %}', '[1][two][{"three":3}]'],
    ['plain text', 'plain text'],
    ['', ''],
  ];
  it.each(mixed)('%j renders to a string', (expression, expected) => {
    expect(evaluate(expression, { data: DATA })).toBe(expected);
  });

  it('returns a copy: changing the result never changes the data', () => {
    const data = { inner: { a: 1 }, list: [1, 2] };
    const inner = evaluate('{{ data.inner }}', { data }) as { a: number };
    inner.a = 2;
    (evaluate('{{ data.list }}', { data }) as number[]).push(3);
    expect(data).toEqual({ inner: { a: 1 }, list: [1, 2] });
  });

  it('works on primitive data', () => {
    expect(evaluate('{{ data }}', { data: 'abc' })).toBe('abc');
    expect(evaluate('{{ data }}', { data: 42 })).toBe(42);
    expect(evaluate('{{ data | size }}', { data: 'abcd' })).toBe(4);
  });

  it('binds metadata only when given', () => {
    const metadata = { customer: 'c-1' };
    expect(evaluate('{{ metadata.customer }}-{{ data }}', { data: 'x', metadata })).toBe('c-1-x');
    expect(evaluate('{{ metadata.customer }}', { data: 'x' })).toBeNull();
  });

  it('cannot write to the caller`s scope', () => {
    const scope = { data: 1 };
    // increment prints the old counter and bumps it in the render's own environment object.
    expect(evaluate('{% increment data %}{% assign data = 7 %}{{ data }}', scope)).toBe('17');
    expect(scope.data).toBe(1);
  });
});

describe('untrusted templates', () => {
  it.each(REMOVED_TAGS.map((tag) => [tag]))('has no %s tag (no file system access)', (tag) => {
    const message = validateExpression(`{% ${tag} 'secrets.txt' %}`);
    expect(message).toContain(`tag "${tag}" not found`);
    const errors = fieldErrorsThrownBy(() => evaluate(`{% ${tag} '/etc/passwd' %}`, { data: 1 }, 'mask'));
    expect(Object.keys(errors)).toEqual(['mask']);
  });

  it('rejects unknown filters when parsing (strictFilters)', () => {
    expect(validateExpression('{{ data | no_such_filter }}')).toContain('undefined filter: no_such_filter');
    expect(validateExpression('{{ data | reveal_last: 4 }}')).toBeNull();
  });

  it('reports syntax errors from the expression', () => {
    expect(validateExpression('{{ data | ')).toMatch(/^invalid expression: /);
    expect(validateExpression('{% if %}')).toMatch(/^invalid expression: /);
    expect(validateExpression(42)).toBe('must be a string');
  });

  it('reads only own properties of the data', () => {
    for (const path of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(evaluate(`{{ data.${path} }}`, { data: { a: 1 } })).toBeNull();
    }
    expect(evaluate('{{ data.size }}', { data: [1, 2] })).toBe(2);
  });
});

describe('limits', () => {
  it(`caps an expression at ${MAX_EXPRESSION_BYTES} bytes of UTF-8`, () => {
    const fits = 'x'.repeat(MAX_EXPRESSION_BYTES);
    expect(evaluate(fits, { data: null })).toBe(fits);
    expect(fieldErrorsThrownBy(() => evaluate(`${fits}x`, { data: null }, 'search_indexes[2]'))).toEqual({
      'search_indexes[2]': [`must be at most ${MAX_EXPRESSION_BYTES} bytes`],
    });
    // 2049 two-byte characters are 4098 bytes.
    expect(validateExpression('é'.repeat(2049))).toBe(`must be at most ${MAX_EXPRESSION_BYTES} bytes`);
    expect(validateExpression('é'.repeat(2048))).toBeNull();
  });

  it('refuses huge ranges before making their numbers: when parsed, or from the data before the loop', () => {
    const huge = '{% for i in (1..100000000) %}{{ i }}{% endfor %}';
    expect(validateExpression(huge)).toBe('a range may hold at most 100000 numbers');
    expect(fieldErrorsThrownBy(() => evaluate(huge, { data: 1 }))['expression']).toEqual([
      'a range may hold at most 100000 numbers',
    ]);
    const fromData = '{% for i in (1..data) limit: 1 %}{{ i }}{% endfor %}';
    expect(validateExpression(fromData)).toBeNull();
    expect(evaluate(fromData, { data: 100_000 })).toBe('1');
    for (const data of [100_001, 1e300, Infinity]) {
      expect(fieldErrorsThrownBy(() => evaluate(fromData, { data }))['expression']).toEqual([
        'a range may hold at most 100000 numbers',
      ]);
    }
  });

  it('bounds the rendered output (memory limit)', () => {
    const engine = new ExpressionEngine({ memoryLimit: 10_000 });
    const errors = fieldErrorsThrownBy(() =>
      engine.evaluate('{% for i in (1..1000) %}{{ data }}{% endfor %}', { data: 'x'.repeat(100) }),
    );
    expect(errors['expression']).toEqual(['the expression exceeded the memory limit']);
    expect(() => engine.evaluate("{{ data | pad_left: 20000, '0' }}", { data: '1' })).toThrow();
  });

  it('stops long loops (render step limit), deterministically', () => {
    // The wall-clock backstop is out of the way, so the count of steps alone decides, however
    // loaded the machine running the test is.
    const engine = new ExpressionEngine({ renderTimeLimitMs: 600_000 });
    const evaluate = (expression: string, variables: { data: unknown }): unknown =>
      engine.evaluate(expression, variables);
    const loops = '{% for i in (1..3000) %}{% for j in (1..data) %}{{ j }}{% endfor %}{% endfor %}';
    const errors = fieldErrorsThrownBy(() => evaluate(loops, { data: 300 }));
    expect(errors['expression']).toEqual(['the expression exceeded the render step limit']);
    // Loops over the data count too (no range is allocated there).
    const list = Array.from({ length: 400 }, (_, i) => i);
    const nested = '{% for a in data %}{% for b in data %}{% endfor %}{% endfor %}';
    expect(fieldErrorsThrownBy(() => evaluate(nested, { data: list }))['expression']).toEqual([
      'the expression exceeded the render step limit',
    ]);
    expect(evaluate(nested, { data: list.slice(0, 100) })).toBe('');
  });

  it('has a wall-clock backstop (render time limit)', () => {
    const engine = new ExpressionEngine({ renderTimeLimitMs: 20, maxRenderSteps: Number.MAX_SAFE_INTEGER });
    const started = performance.now();
    const errors = fieldErrorsThrownBy(() =>
      engine.evaluate('{% for i in (1..3000) %}{% for j in (1..300) %}{{ j }}{% endfor %}{% endfor %}', {
        data: 1,
      }),
    );
    expect(errors['expression']).toEqual(['the expression exceeded the render time limit']);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('render time on a loaded machine', () => {
  // A controllable clock: every reading of the wall clock is 40 ms after the last, as when the
  // thread keeps losing its core; the process's CPU clock moves only if `cpuStep` says so.
  function withClocks<T>(cpuStepMs: number, fn: () => T): T {
    let wall = performance.now();
    let cpu = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (wall += 40));
    const usage = vi.spyOn(process, 'cpuUsage').mockImplementation((previous?: NodeJS.CpuUsage) => {
      cpu += cpuStepMs * 1000;
      return { user: cpu - (previous?.user ?? 0), system: -(previous?.system ?? 0) };
    });
    try {
      return fn();
    } finally {
      now.mockRestore();
      usage.mockRestore();
    }
  }
  const LOOP = '{% for i in (1..30) %}{{ i }}{% endfor %}';
  const RENDERED = Array.from({ length: 30 }, (_, i) => i + 1).join('');

  it('does not count time the thread waited for a core', () => {
    const engine = new ExpressionEngine({ renderTimeLimitMs: 100 });
    expect(withClocks(0.01, () => engine.evaluate(LOOP, { data: 1 }))).toBe(RENDERED);
    // The same render under a token's budget of 100 ms books its CPU time, not the wall's 1.2 s.
    const budget = new ExpressionBudget({ steps: 10_000, memory: 100_000, ms: 100 }, 'the budget');
    expect(withClocks(0.01, () => engine.evaluate(LOOP, { data: 1 }, 'expression', budget))).toBe(RENDERED);
    expect(budget.used.ms).toBeLessThan(100);
  });

  it('still stops a render whose own work passes the limit', () => {
    const engine = new ExpressionEngine({ renderTimeLimitMs: 100 });
    expect(
      fieldErrorsThrownBy(() => withClocks(40, () => engine.evaluate(LOOP, { data: 1 })))['expression'],
    ).toEqual(['the expression exceeded the render time limit']);
    const budget = new ExpressionBudget({ steps: 10_000, memory: 100_000, ms: 100 }, 'the budget');
    const unlimited = new ExpressionEngine({ renderTimeLimitMs: 600_000 });
    expect(
      fieldErrorsThrownBy(() =>
        withClocks(40, () => unlimited.evaluate(LOOP, { data: 1 }, 'expression', budget)),
      )['expression'],
    ).toEqual(['the budget exceeded their total time of 100 ms']);
  });
});

describe('parsed-template cache', () => {
  it('parses an expression once and reuses it', () => {
    const engine = new ExpressionEngine({ cacheSize: 10 });
    for (let i = 0; i < 5; i += 1) engine.evaluate('{{ data | reveal_last: 4 }}', { data: `12345678${i}` });
    expect(engine.parseCount).toBe(1);
    expect(engine.cachedTemplates).toBe(1);
    engine.validate('{{ data | last4 }}');
    engine.evaluate('{{ data | last4 }}', { data: '123456' });
    expect(engine.parseCount).toBe(2);
  });

  it('evicts the least recently used template when full', () => {
    const engine = new ExpressionEngine({ cacheSize: 2 });
    const run = (e: string): unknown => engine.evaluate(e, { data: 'abcdef' });
    run('{{ data | last4 }}');
    run('{{ data | upcase }}');
    run('{{ data | last4 }}'); // refreshes last4
    run('{{ data | downcase }}'); // evicts upcase
    expect(engine.parseCount).toBe(3);
    expect(engine.cachedTemplates).toBe(2);
    run('{{ data | last4 }}');
    expect(engine.parseCount).toBe(3);
    run('{{ data | upcase }}');
    expect(engine.parseCount).toBe(4);
  });

  it('does not cache a failed parse', () => {
    const engine = new ExpressionEngine({ cacheSize: 2 });
    expect(engine.validate('{{ oops')).not.toBeNull();
    expect(engine.cachedTemplates).toBe(0);
  });

  it('LruCache keeps at most its capacity', () => {
    const lru = new LruCache<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) lru.set(key, i);
    expect(lru.has('a')).toBe(false);
    expect(lru.get('b')).toBe(1);
    lru.set('e', 4); // evicts c, since b was just used
    expect(lru.has('c')).toBe(false);
    expect(lru.size).toBe(3);
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});

describe('error messages never contain token data', () => {
  const SECRET = 'Zq7-SECRET-4111111111111111-vault';
  const failing: Array<[string, unknown]> = [
    ['{{ data | to_number }}', SECRET],
    ['{{ data | to_boolean }}', SECRET],
    ['{{ data.value | to_string }}', { value: { secret: SECRET } }],
    ["{{ data | json: '$.missing' }}", { secret: SECRET }],
    ["{{ data | json: '$..*' }}", { a: SECRET, b: SECRET }],
    ['{{ data | reveal_last: data }}', SECRET],
    ['{{ data | pad_left: 4, data }}', SECRET],
    ['{{ data | alias_preserve_format: 100 }}', SECRET],
    ['{{ data | last4 }}', { secret: SECRET }],
    ["{{ data | card_exp: 'MM' }}", SECRET],
    ['{{ data | card_bin }}', SECRET],
    ['{{ data | url_decode }}', `${SECRET}%E0%A4%A`],
    ['{{ data | to_base64 }}', [SECRET]],
    ["{{ data | hmac: 'sha-256', data }}", { secret: SECRET }],
    ['{% for i in (1..100000000) %}{{ data }}{% endfor %}', SECRET],
  ];
  it.each(failing)('%s', (expression, data) => {
    let caught: unknown;
    try {
      evaluate(expression, { data });
    } catch (error) {
      caught = error;
    }
    expect(isVaultError(caught, 'VALIDATION_FAILED')).toBe(true);
    const text = JSON.stringify({
      message: (caught as Error).message,
      errors: (caught as { errors: unknown }).errors,
    });
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('4111');
  });

  it('never echoes an hmac key', () => {
    const errors = fieldErrorsThrownBy(() =>
      evaluate("{{ data | hmac: 'sha-999', 'key-TOPSECRET' }}", { data: 'x' }),
    );
    expect(JSON.stringify(errors)).not.toContain('TOPSECRET');
  });
});

import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { ExpressionBudget, TOKEN_EXPRESSION_LIMITS } from './budget.ts';
import { ExpressionEngine } from './engine.ts';
import { MAX_TAG_NESTING, StaticLimitError, staticCost } from './static-cost.ts';

const liquid = new Liquid();
const costOf = (template: string) => staticCost(liquid.parse(template));

/** Steps and memory a real render of `template` over `data` used. */
function used(template: string, data: unknown): { steps: number; memory: number } {
  const budget = new ExpressionBudget({ steps: 1e9, memory: 1e9, ms: 1e9 }, 'the test');
  new ExpressionEngine().evaluate(template, { data }, 'e', budget);
  return { steps: budget.used.steps, memory: budget.used.memory };
}

describe('static cost of a template', () => {
  it('counts loops over written ranges, their bodies and their limits', () => {
    // The template list and its node, the range's numbers (100 → 4 steps), 100 empty bodies.
    expect(costOf('{% for i in (1..100) %}{% endfor %}')).toEqual({ steps: 106, memory: 100 });
    expect(costOf('{% for i in (1..100) limit: 10 offset: 95 %}x{% endfor %}')).toEqual({
      steps: 2 + 4 + 5 * 2,
      memory: 100 + 5,
    });
    // Nested loops multiply.
    expect(costOf('{% for i in (1..10) %}{% for j in (1..10) %}{% endfor %}{% endfor %}').steps).toBe(
      2 + 1 + 10 * (2 + 1 + 10 * 1),
    );
  });

  it('counts nothing the data decides: conditions, loops over data, ranges from data', () => {
    expect(costOf('{% if data %}{% for i in (1..1000) %}{% endfor %}{% endif %}').steps).toBe(2);
    expect(costOf('{% for x in data %}{{ x | upcase }}{% endfor %}').steps).toBe(2);
    expect(costOf('{% for i in (1..data) %}x{% endfor %}')).toEqual({ steps: 2, memory: 0 });
    expect(costOf('{% for i in (1..100) limit: data %}x{% endfor %}')).toEqual({ steps: 6, memory: 100 });
    // A negative offset keeps the last numbers only.
    expect(costOf('{% for i in (1..99999) offset: -2 %}{% endfor %}')).toEqual({
      steps: 2 + 3125 + 2,
      memory: 99999,
    });
  });

  it('counts a body that may break once, and one that may continue as entered only', () => {
    expect(costOf('{% for i in (1..1000) %}{% if data %}{% break %}{% endif %}xx{% endfor %}').steps).toBe(
      2 + 32 + 1 * 2,
    );
    expect(costOf('{% for i in (1..1000) %}{% if data %}{% continue %}{% endif %}xx{% endfor %}').steps).toBe(
      2 + 32 + 1000 * 2,
    );
    // An inner loop's break cuts only the inner loop short.
    const inner = costOf('{% for i in (1..10) %}{% for j in (1..10) %}{% break %}{% endfor %}{% endfor %}');
    expect(inner.steps).toBe(2 + 1 + 10 * (2 + 1 + 1 * 2));
  });

  it('counts captures and outputs with their filters', () => {
    expect(costOf("{% capture x %}{{ data | upcase | append: 'x' }}{% endcapture %}").steps).toBe(2 + 2 + 6);
  });

  it('is a lower bound of what a render counts', () => {
    const cases: Array<[string, unknown]> = [
      ['{% for i in (1..300) %}{{ i }}-{% endfor %}', null],
      [
        '{% for i in (1..40) limit: 7 %}{% for j in (1..9) %}{{ data | upcase }}{% endfor %}{% endfor %}',
        'x',
      ],
      ['{% for i in (1..50) %}{% if i > 3 %}{% break %}{% endif %}{{ i }}{% endfor %}', null],
      ['{% for i in (1..50) %}{% if i > 3 %}{% continue %}{% endif %}ab{% endfor %}', null],
      ['{% capture c %}{% for i in (1..20) %}{{ i }}{% endfor %}{% endcapture %}{{ c }}', null],
      ['{% for i in (1..30) %}{% capture c %}some text{% endcapture %}{% endfor %}', null],
      ['{% for i in (1..30) offset: -4 %}x{% endfor %}{% for i in (1..30) limit: -25 %}y{% endfor %}', null],
      ["{% for i in (1..30) offset: '28' limit: nil %}x{% endfor %}", null],
      ['{% tablerow i in (1..30) offset: 2 limit: 3 %}{% break %}x{% endtablerow %}', null],
      ['{% tablerow i in (1..12) cols: 3 %}{{ i | plus: 1 }}{% endtablerow %}', null],
      ['{% liquid\nfor i in (1..30)\necho i\nendfor %}', null],
      ['{% for x in data %}{{ x }}{% else %}none{% endfor %}', [1, 2, 3]],
      ['{{ data | split: "," | join: ";" }}', 'a,b,c'],
    ];
    for (const [template, data] of cases) {
      const cost = costOf(template);
      const actual = used(template, data);
      expect(actual.steps, template).toBeGreaterThanOrEqual(cost.steps);
      expect(actual.memory, template).toBeGreaterThanOrEqual(cost.memory);
    }
  });

  it('refuses a range anywhere but as the collection of a loop', () => {
    for (const template of [
      "{{ (1..5) | join: ',' }}",
      '{% assign r = (1..data) %}{% for i in r %}{% endfor %}',
      '{% if (1..3) contains data %}y{% endif %}',
      '{% for i in (1..3) limit: (1..2) %}{% endfor %}',
      "{{ 'a' | append: (1..data) }}",
      '{% case data %}{% when (1..3) %}w{% endcase %}',
      '{% liquid\necho (1..data) | size %}',
      '{% for i in (1..3) %}{{ (1..i) | size }}{% endfor %}',
    ]) {
      expect(() => costOf(template), template).toThrow(
        new StaticLimitError('a range (a..b) may only be the collection of a for or tablerow loop'),
      );
    }
  });

  it('refuses ranges written with more numbers than a render has steps, and deep nesting', () => {
    expect(() => costOf('{% for i in (0..100000) limit: 1 %}{% endfor %}')).toThrow(
      'a range may hold at most 100000 numbers',
    );
    const nested = (depth: number) => '{% if data %}'.repeat(depth) + 'x' + '{% endif %}'.repeat(depth);
    expect(() => costOf(nested(MAX_TAG_NESTING))).not.toThrow();
    expect(() => costOf(nested(MAX_TAG_NESTING + 1))).toThrow(
      `tags may nest at most ${MAX_TAG_NESTING} levels`,
    );
  });
});

describe('refusals by static cost', () => {
  const engine = new ExpressionEngine();

  it('refuses what exceeds one render when the expression is parsed, naming the limit', () => {
    expect(engine.validate('{% for i in (1..99999) %}{% endfor %}')).toBe(
      'the expression needs at least 103126 steps, more than the render step limit of 100000',
    );
    expect(engine.validate(`{% for i in (1..1000) %}${'x'.repeat(3000)}{% endfor %}`)).toBe(
      'the expression needs at least 3001000 memory units, more than the memory limit of 2500000',
    );
  });

  it('refuses what cannot fit the budgets left before rendering anything, and the budget stays spent', () => {
    const budget = new ExpressionBudget(TOKEN_EXPRESSION_LIMITS, "the token's expressions");
    const dear = '{% for i in (1..30000) %}{% endfor %}';
    expect(engine.validate(dear)).toBeNull();
    expect(() => engine.evaluate(dear, { data: 1 }, 'search_indexes[0]', budget)).toThrow(
      expect.objectContaining({
        errors: { 'search_indexes[0]': ["the token's expressions exceeded their total of 20000 steps"] },
      }),
    );
    // Nothing was spent on it, and nothing more may be.
    expect(budget.used.steps).toBe(0);
    expect(() => engine.evaluate('{{ data }}', { data: 1 }, 'id', budget)).toThrow(
      expect.objectContaining({
        errors: { id: ["the token's expressions exceeded their total of 20000 steps"] },
      }),
    );
  });

  it('remembers a refusal: the same expression again is not parsed again', () => {
    const fresh = new ExpressionEngine();
    const refused = '{% for i in (1..99999) %}{% endfor %}';
    fresh.validate(refused);
    const parses = fresh.parseCount;
    expect(fresh.validate(refused)).toMatch(/render step limit/);
    expect(fresh.parseCount).toBe(parses);
  });
});

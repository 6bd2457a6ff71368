/** The token-facing helpers: masks, fingerprint input, search indexes and alias ids. */
import { describe, expect, it } from 'vitest';
import { fieldErrorsThrownBy } from '../test-support/field-errors.ts';
import {
  ALIAS_ATTEMPTS,
  MAX_FINGERPRINT_EXPRESSION_LENGTH,
  MAX_MASK_DEPTH,
  MAX_SEARCH_INDEXES,
  assertExpression,
  evaluateAlias,
  evaluateMask,
  evaluateSearchIndexes,
  evaluateToString,
  fingerprintInput,
  isExpression,
  validateMask,
} from './index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('evaluateMask', () => {
  it('masks a primitive token (D masks example)', () => {
    expect(evaluateMask('{{ data | reveal_last: 4 }}', '4242-4242-4242-4242')).toBe('XXXX-XXXX-XXXX-4242');
  });

  it('masks a complex token and redacts what the mask leaves out (D masks example)', () => {
    const data = {
      name: { first: 'John', middle: 'Wilson', last: 'Doe' },
      ssn: '123-45-6789',
      card_number: '4242-4242-4242-4242',
      cvc: '123',
    };
    const mask = {
      name: { first: '{{ data.name.first }}', last: '{{ data.name.last | slice: 0, 1 }}.' },
      ssn: "{{ data.ssn | reveal_last: 4, '#' }}",
      card_number: "{{ data.card_number | reveal_last: 4, '#' }}",
    };
    expect(evaluateMask(mask, data)).toEqual({
      name: { first: 'John', last: 'D.' },
      ssn: '###-##-6789',
      card_number: '####-####-####-4242',
    });
  });

  it('keeps value types, literals and arrays', () => {
    const data = { month: 3, tags: ['a', 'b'] };
    expect(evaluateMask(['{{ data.month }}', 7, true, null, '{{ data.tags }}', 'literal'], data)).toEqual([
      3,
      7,
      true,
      null,
      ['a', 'b'],
      'literal',
    ]);
  });

  it('has no mask for null', () => {
    expect(evaluateMask(null, 'x')).toBeNull();
    expect(evaluateMask(undefined, 'x')).toBeNull();
  });

  it('names the failing leaf', () => {
    const errors = fieldErrorsThrownBy(() =>
      evaluateMask({ a: '{{ data | to_number }}', b: ['ok', '{{ data | to_boolean }}'] }, 'not-a-number'),
    );
    expect(Object.keys(errors).sort()).toEqual(['mask.a', 'mask.b[1]']);
  });

  it('validateMask reports parse errors and bad shapes by path', () => {
    expect(validateMask({ a: '{{ data | nope }}', b: { c: '{{ data' }, d: 'fine' })).toEqual({
      'mask.a': [expect.stringContaining('undefined filter: nope')],
      'mask.b.c': [expect.stringContaining('not closed')],
    });
    let deep: unknown = '{{ data }}';
    for (let i = 0; i <= MAX_MASK_DEPTH; i += 1) deep = { x: deep };
    expect(Object.values(validateMask(deep)).flat()).toEqual([
      `is nested deeper than ${MAX_MASK_DEPTH} levels`,
    ]);
    expect(() => evaluateMask(deep, 1)).toThrow();
    expect(validateMask('{{ data | reveal_last: 4 }}')).toEqual({});
  });
});

describe('fingerprintInput', () => {
  it('evaluates the expression to text', () => {
    expect(fingerprintInput('{{ data | stringify }}', { b: [1, 2], a: 'x' })).toBe('{"b":[1,2],"a":"x"}');
    expect(fingerprintInput('{{ data | stringify }}', 'plain')).toBe('plain');
    expect(fingerprintInput('{{ data }}', 4242)).toBe('4242');
    expect(fingerprintInput('{{ data }}', { a: 1 })).toBe('{"a":1}');
    expect(fingerprintInput('customer-{{ data }}', 'x')).toBe('customer-x');
  });

  it('may read metadata', () => {
    expect(fingerprintInput('{{ metadata.customer }}|{{ data }}', 'x', { customer: 'c-9' })).toBe('c-9|x');
    expect(fingerprintInput('{{ metadata.customer }}|{{ data }}', 'x')).toBe('|x');
  });

  it('is null when the expression yields nothing', () => {
    expect(fingerprintInput('{{ data.email }}', { name: 'n' })).toBeNull();
    expect(fingerprintInput('{{ data.email }}', { email: '' })).toBeNull();
  });

  it(`refuses expressions over ${MAX_FINGERPRINT_EXPRESSION_LENGTH} characters`, () => {
    const long = `{{ data }}${'x'.repeat(MAX_FINGERPRINT_EXPRESSION_LENGTH)}`;
    expect(fieldErrorsThrownBy(() => fingerprintInput(long, 'x'))).toEqual({
      fingerprint_expression: [`must be at most ${MAX_FINGERPRINT_EXPRESSION_LENGTH} characters`],
    });
    expect(Object.keys(fieldErrorsThrownBy(() => fingerprintInput('{{ data | nope }}', 'x')))).toEqual([
      'fingerprint_expression',
    ]);
  });
});

describe('evaluateSearchIndexes', () => {
  it('evaluates each expression in order', () => {
    const expressions = ['{{ data }}', "{{ data | remove: '-' }}", '{{ data | last4 }}'];
    expect(evaluateSearchIndexes(expressions, '123-45-6789')).toEqual(['123-45-6789', '123456789', '6789']);
    expect(evaluateSearchIndexes([], 'x')).toEqual([]);
    expect(evaluateSearchIndexes(['{{ data.n }}'], { n: 5 })).toEqual(['5']);
  });

  it('names every expression that yields nothing or fails', () => {
    const errors = fieldErrorsThrownBy(() =>
      evaluateSearchIndexes(['{{ data.a }}', '{{ data.missing }}', '{{ data.a | to_number }}', 7], {
        a: 'x',
      }),
    );
    expect(errors).toEqual({
      'search_indexes[1]': ['must produce a non-empty value'],
      'search_indexes[2]': ["filter 'to_number': the value cannot be cast to a number"],
      'search_indexes[3]': ['must be an expression string'],
    });
    expect(fieldErrorsThrownBy(() => evaluateSearchIndexes(['{{ data.e }}'], { e: '' }))).toEqual({
      'search_indexes[0]': ['must produce a non-empty value'],
    });
  });

  it(`accepts at most ${MAX_SEARCH_INDEXES}`, () => {
    const many = Array.from({ length: MAX_SEARCH_INDEXES + 1 }, () => '{{ data }}');
    expect(Object.keys(fieldErrorsThrownBy(() => evaluateSearchIndexes(many, 'x')))).toEqual([
      'search_indexes',
    ]);
    expect(evaluateSearchIndexes(many.slice(1), 'x')).toHaveLength(MAX_SEARCH_INDEXES);
  });
});

describe('evaluateAlias', () => {
  it('evaluates the alias expression (D aliasing examples)', () => {
    expect(evaluateAlias('{{ data | alias_preserve_format: 0, 4 }}', '111-22-3333', () => false)).toMatch(
      /^\d{3}-\d{2}-3333$/,
    );
    expect(
      evaluateAlias(
        '{{ data.number | alias_preserve_format: 0, 4 }}',
        { number: '4242424242424242' },
        () => false,
      ),
    ).toMatch(/^\d{12}4242$/);
  });

  it('retries while the id is taken', () => {
    const seen: string[] = [];
    const id = evaluateAlias('{{ data | alias_preserve_length }}', 'abcdefgh', (candidate) => {
      seen.push(candidate);
      return seen.length < 3;
    });
    expect(seen).toHaveLength(3);
    expect(id).toBe(seen[2]);
  });

  it('falls back to a random UUID when the alias space is exhausted', () => {
    let calls = 0;
    const id = evaluateAlias('{{ data | alias_preserve_format: 0, 3 }}', '1234', () => {
      calls += 1;
      return true;
    });
    expect(id).toMatch(UUID);
    expect(calls).toBe(ALIAS_ATTEMPTS);
    expect(evaluateAlias('{{ data }}', 'fixed', () => true, { attempts: 2 })).toMatch(UUID);
  });

  it('fails when the expression yields nothing', () => {
    expect(fieldErrorsThrownBy(() => evaluateAlias('{{ data.missing }}', {}, () => false))).toEqual({
      id: ['the alias expression produced no value'],
    });
    expect(
      Object.keys(
        fieldErrorsThrownBy(() =>
          evaluateAlias('{{ data | alias_preserve_format: 4 }}', '1234', () => false),
        ),
      ),
    ).toEqual(['id']);
  });
});

describe('small helpers', () => {
  it('isExpression', () => {
    expect(isExpression('{{ data }}')).toBe(true);
    expect(isExpression('{% if x %}{% endif %}')).toBe(true);
    expect(isExpression('abc-123')).toBe(false);
    expect(isExpression('{ not }')).toBe(false);
  });

  it('evaluateToString prints values as text', () => {
    expect(evaluateToString('{{ data }}', { data: { a: [1] } })).toBe('{"a":[1]}');
    expect(evaluateToString('{{ data }}', { data: false })).toBe('false');
    expect(evaluateToString('{{ data.x }}', { data: {} })).toBeNull();
  });

  it('assertExpression names the field', () => {
    expect(fieldErrorsThrownBy(() => assertExpression('{{ data | nope }}', 'mask'))).toEqual({
      mask: [expect.stringContaining('undefined filter: nope')],
    });
    expect(() => assertExpression('{{ data }}', 'mask')).not.toThrow();
  });
});

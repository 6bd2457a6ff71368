import { describe, expect, it } from 'vitest';
import { MAX_DATA_DEPTH, jsonValueProblem } from './json-value.ts';

function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('jsonValueProblem', () => {
  it(`accepts ${MAX_DATA_DEPTH} levels and refuses one more`, () => {
    expect(jsonValueProblem(nested(MAX_DATA_DEPTH))).toBeNull();
    expect(jsonValueProblem(nested(MAX_DATA_DEPTH + 1))).toBe(
      `must not be nested deeper than ${MAX_DATA_DEPTH} levels`,
    );
  });

  it('refuses a value nested far deeper than the stack allows, without overflowing it', () => {
    expect(jsonValueProblem(nested(1_000_000))).toMatch(/nested deeper/);
  });

  it('refuses non-finite numbers anywhere', () => {
    expect(jsonValueProblem({ a: [1, 2, { b: Number.POSITIVE_INFINITY }] })).toBe(
      'must not contain non-finite numbers',
    );
    expect(jsonValueProblem(Number.NaN)).toBe('must not contain non-finite numbers');
    expect(jsonValueProblem({ a: [1, -0, 0.5, 'x', null, true] })).toBeNull();
  });
});

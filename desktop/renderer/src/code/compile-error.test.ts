import { describe, expect, it } from 'vitest';
import { compileErrorOf, offsetOf, saveWarningOf } from './compile-error';

describe('compileErrorOf', () => {
  it('reads the position at the end of a detail or a field error', () => {
    expect(compileErrorOf("Invalid Reactor Formula: line 3, column 7: expected ';'")).toEqual({
      line: 3,
      column: 7,
      message: "expected ';'",
    });
    expect(compileErrorOf('line 1, column 1: unexpected token')).toEqual({
      line: 1,
      column: 1,
      message: 'unexpected token',
    });
  });

  it('is null without a position', () => {
    expect(compileErrorOf('Invalid Reactor Formula: module.exports is not a function')).toBeNull();
    expect(compileErrorOf(undefined)).toBeNull();
    expect(compileErrorOf('line 0, column 2: nope')).toBeNull();
  });
});

describe('saveWarningOf', () => {
  it('reads the warning of a save, whose position compileErrorOf finds', () => {
    const detail = "Invalid Reactor Formula: line 2, column 11: SyntaxError: expecting ';'";
    const warning = saveWarningOf(new Headers({ 'SVC-Warning': detail }));
    expect(warning).toBe(detail);
    expect(compileErrorOf(warning ?? undefined)).toEqual({
      line: 2,
      column: 11,
      message: "SyntaxError: expecting ';'",
    });
    expect(saveWarningOf(new Headers())).toBeNull();
  });
});

describe('offsetOf', () => {
  const doc = 'ab\ncdef\ng';
  it('finds a line and column', () => {
    expect(offsetOf(doc, 1, 1)).toBe(0);
    expect(offsetOf(doc, 2, 3)).toBe(5);
    expect(offsetOf(doc, 3, 1)).toBe(8);
  });
  it('clamps positions outside the document', () => {
    expect(offsetOf(doc, 9, 1)).toBe(8);
    expect(offsetOf(doc, 2, 99)).toBe(7);
  });
});

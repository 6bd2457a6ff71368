import { describe, expect, it } from 'vitest';
import { positionInCode, wrappedPosition } from './code-position.ts';

describe('wrappedPosition', () => {
  it('reads the column from the stack when the error has no columnNumber', () => {
    expect(wrappedPosition(3, undefined, '    at formula.js:3:36\n')).toEqual({ line: 3, column: 36 });
  });

  it('prefers lineNumber and columnNumber when they are there', () => {
    expect(wrappedPosition(4, 7, '    at formula.js:3:36\n')).toEqual({ line: 4, column: 7 });
  });

  it('has no position without either', () => {
    expect(wrappedPosition(undefined, undefined, 'no frames')).toEqual({ line: null, column: null });
  });
});

describe('positionInCode', () => {
  const code = 'module.exports = async function (req) {\n  return {\n};';

  it('counts lines from the first line of the code (the wrapper adds one before it)', () => {
    expect(positionInCode(code, 2, 5)).toEqual({ line: 1, column: 5 });
    expect(positionInCode(code, 3, 10)).toEqual({ line: 2, column: 10 });
  });

  it('puts an error found in the wrapper after the code at the end of the last line of the code', () => {
    // Line 5 of the wrapped text is the wrapper's closing `})`: the code has 3 lines.
    expect(positionInCode(code, 5, 2)).toEqual({ line: 3, column: 3 });
    expect(positionInCode('module.exports = 1; // no end', 3, 2)).toEqual({ line: 1, column: 30 });
  });

  it('never answers a line before the code', () => {
    expect(positionInCode(code, 1, 20)).toEqual({ line: 1, column: 1 });
    expect(positionInCode(code, null, null)).toEqual({ line: 1, column: 1 });
  });
});

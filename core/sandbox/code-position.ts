/**
 * Where a compile error sits in the formula's own code. The code is compiled wrapped in
 * CODE_PREFIX … CODE_SUFFIX (prelude.ts), so QuickJS counts lines of the wrapped text; and
 * QuickJS 0.32 puts the column only in the error's stack (`at formula.js:<line>:<column>`), not
 * in `columnNumber`.
 */
import { CODE_LINE_OFFSET } from './prelude.ts';

export interface CodePosition {
  /** 1-based line of the user's code. */
  readonly line: number;
  /** 1-based column on that line. */
  readonly column: number;
}

const STACK_POSITION = /formula\.js:(\d+):(\d+)/;

/** The line and column QuickJS reports for an error in the wrapped code, when it reports them. */
export function wrappedPosition(
  lineNumber: unknown,
  columnNumber: unknown,
  stack: unknown,
): { line: number | null; column: number | null } {
  const fromStack = typeof stack === 'string' ? STACK_POSITION.exec(stack) : null;
  const number = (value: unknown, fallback: string | undefined): number | null => {
    const n = typeof value === 'number' ? value : Number(fallback);
    return Number.isInteger(n) && n > 0 ? n : null;
  };
  return {
    line: number(lineNumber, fromStack?.[1]),
    column: number(columnNumber, fromStack?.[2]),
  };
}

/**
 * The position in `code` of a position in the wrapped text. An error found only in the wrapper's
 * closing lines (an unclosed brace, a `//` comment swallowing the rest of the last line) is
 * reported at the end of the code's last line, where the code stopped short, never on a line the
 * code does not have.
 */
export function positionInCode(
  code: string,
  wrappedLine: number | null,
  wrappedColumn: number | null,
): CodePosition {
  const lines = code.split('\n');
  const line = wrappedLine === null ? 1 : wrappedLine - CODE_LINE_OFFSET;
  if (line < 1) return { line: 1, column: 1 };
  if (line > lines.length) {
    return { line: lines.length, column: (lines[lines.length - 1] ?? '').length + 1 };
  }
  return { line, column: wrappedColumn ?? 1 };
}

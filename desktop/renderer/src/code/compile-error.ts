/** Where the server says code does not compile: 1-based line and column, and what is wrong. */
export interface CompileError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

const AT = /line (\d+), column (\d+): ([\s\S]*)$/;

/**
 * The position in a compile problem as the server writes it: `line <n>, column <m>: <message>`,
 * at the end of a 422's `detail` (reactor formulas) or of a field error (proxy transforms).
 * Null when the text names no position.
 */
export function compileErrorOf(text: string | undefined): CompileError | null {
  if (text === undefined) return null;
  const match = AT.exec(text);
  if (match === null) return null;
  const line = Number(match[1]);
  const column = Number(match[2]);
  if (!Number.isInteger(line) || line < 1 || !Number.isInteger(column) || column < 0) return null;
  return { line, column, message: (match[3] ?? '').trim() };
}

/**
 * The warning of a save that stored code which does not compile (the `SVC-Warning` response header
 * of a formula save): the text the invocation's 422 will carry, or null when the code compiled.
 */
export function saveWarningOf(headers: Headers): string | null {
  return headers.get('svc-warning');
}

/**
 * The character offset of a 1-based line and column in `doc`, clamped into the document, so an
 * editor can mark it even when the code changed since it was checked.
 */
export function offsetOf(doc: string, line: number, column: number): number {
  const lines = doc.split('\n');
  const index = Math.min(Math.max(line, 1), lines.length) - 1;
  let offset = 0;
  for (let i = 0; i < index; i++) offset += (lines[i] ?? '').length + 1;
  const length = (lines[index] ?? '').length;
  return offset + Math.min(Math.max(column - 1, 0), length);
}

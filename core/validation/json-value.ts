/**
 * Shape limits of a parsed JSON value that a caller hands us to store (token `data`): nesting at
 * most `MAX_DATA_DEPTH` levels, and only finite numbers. Deeper values would overflow the stack of
 * the recursive code that later walks them (expressions, encryption, serialisation); a non-finite
 * number has no JSON form and would be stored altered (as `null`).
 *
 * The walk is iterative, so even a value nested a million levels deep is refused, not a crash.
 */

/** Deepest nesting accepted: `{"a":{"b":1}}` is 2 levels deep, a scalar 0. */
export const MAX_DATA_DEPTH = 64;

/** Why `value` cannot be stored as it is, or null. Messages never quote the value. */
export function jsonValueProblem(value: unknown, maxDepth = MAX_DATA_DEPTH): string | null {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: v, depth } = next;
    if (typeof v === 'number' && !Number.isFinite(v)) return 'must not contain non-finite numbers';
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return `must not be nested deeper than ${maxDepth} levels`;
    for (const item of Object.values(v)) stack.push({ value: item, depth: depth + 1 });
  }
  return null;
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whole outputs the engine renders without liquidjs' render machinery: the shapes of the vault's
 * own masks, fingerprints and search indexes, and of most written by callers. A template is one
 * when its TEXT (never liquidjs' parse tree) is
 *
 *   `{{ data[.name]… [| filter[: literal[, literal]…]]… }}`
 *
 * with spaces only, names of letters, digits and `_` (not `size`, `first` or `last`, which Liquid
 * reads specially), the custom filters of filters.ts, and literals that are integers without a
 * leading zero or quoted strings without a backslash or brace. Anything else goes through liquidjs.
 *
 * Rule: a direct render (engine.ts `renderDirect`) does what liquidjs does for that template, in
 * the same order: the renderer's two render-limit checks (steps), the own-property reads of `data`,
 * each filter's step charge and call (`applyCustomFilter`, shared with the liquidjs path), the
 * output's `toValue`. A value on the path that liquidjs would treat as more than data (a Drop, an
 * object with `toLiquid`, a function) sends the render to liquidjs before anything is charged.
 * direct-output.test.ts renders every expression the vault ships and generated ones over seeded
 * random data both ways and compares values, errors and the budgets' counters.
 */
import { Drop } from 'liquidjs';
import { CUSTOM_FILTERS } from './filters.ts';

/** A filter call of a direct output: a custom filter with literal positional arguments. */
export interface DirectFilter {
  readonly name: string;
  readonly args: readonly (string | number)[];
}

/** A whole output rendered without liquidjs: the property names read below `data`, then the filters. */
export interface DirectOutput {
  readonly path: readonly string[];
  readonly filters: readonly DirectFilter[];
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const LITERAL = `(?:0|[1-9][0-9]{0,8}|'[^'\\\\{}]*'|"[^"\\\\{}]*")`;
const FILTER = ` *\\| *(${NAME})(?: *: *(${LITERAL}(?: *, *${LITERAL})*))?`;
const WHOLE = new RegExp(`^\\{\\{ *data((?:\\.${NAME})*)((?:${FILTER})*) *\\}\\}$`);
const FILTER_CALL = new RegExp(FILTER, 'g');
const LITERALS = new RegExp(LITERAL, 'g');
/** Property names liquidjs reads specially (`size` of a string, `first` of an array …). */
const SPECIAL_NAMES: ReadonlySet<string> = new Set(['size', 'first', 'last']);

function literalValue(text: string): string | number {
  return text.startsWith("'") || text.startsWith('"') ? text.slice(1, -1) : Number(text);
}

/** The direct form of `expression`, or null when liquidjs must render it. */
export function directOutputOf(expression: string): DirectOutput | null {
  const match = WHOLE.exec(expression);
  if (match === null) return null;
  const path = (match[1] ?? '').split('.').slice(1);
  if (path.some((name) => SPECIAL_NAMES.has(name))) return null;
  const filters: DirectFilter[] = [];
  for (const call of (match[2] ?? '').matchAll(FILTER_CALL)) {
    const name = call[1] ?? '';
    if (!Object.hasOwn(CUSTOM_FILTERS, name)) return null;
    filters.push({ name, args: [...(call[2] ?? '').matchAll(LITERALS)].map((m) => literalValue(m[0])) });
  }
  return { path, filters };
}

/** What liquidjs would read of `value` beyond plain data. */
function isPlainValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'function' || value instanceof Drop) return false;
  return typeof (value as { toLiquid?: unknown }).toLiquid !== 'function';
}

/** Marks a path whose values liquidjs would treat as more than data. */
export const NOT_DIRECT: unique symbol = Symbol('not direct');

/**
 * The value at `path` below `data` as liquidjs reads it with `ownPropertyOnly` (a missing or
 * inherited property is undefined, and so is everything below it), or NOT_DIRECT.
 */
export function directPathValue(data: unknown, path: readonly string[]): unknown {
  let value = data;
  if (!isPlainValue(value)) return NOT_DIRECT;
  for (const name of path) {
    if (value === null || value === undefined) return value;
    value = Object.prototype.hasOwnProperty.call(value, name)
      ? (value as Record<string, unknown>)[name]
      : undefined;
    if (!isPlainValue(value)) return NOT_DIRECT;
  }
  return value;
}

/**
 * The `json` filter's JSONPath evaluation (jsonpath-plus, Goessner syntax), hardened for user input:
 *
 * - Filter and script expressions (`?(@.price < 10)`, `(@.length-1)`) run in jsonpath-plus' own safe
 *   evaluator (no `eval`, no `vm`), and we additionally refuse any script that calls a function or
 *   assigns (`@.title.repeat(1e9)`, `@.items.push(1)`, `a = 1; …`): comparisons, arithmetic, logic and
 *   property reads are all a filter needs, and calls are how a script would burn memory or mutate data.
 * - jsonpath-plus memoises every parsed path and script in a process-wide object that never shrinks;
 *   we empty it when it grows past a bound, so user-supplied paths cannot grow memory without end.
 */
import { JSONPath } from 'jsonpath-plus';
import { FilterError } from './filter-error.ts';

interface Script {
  runInNewContext(context: object): unknown;
}

interface SafeScriptClass {
  new (code: string): Script & { readonly ast?: unknown };
}

const FORBIDDEN_NODES = new Set(['CallExpression', 'AssignmentExpression', 'Compound', 'NewExpression']);

function safeScriptClass(): SafeScriptClass {
  const vm = (JSONPath as unknown as { prototype?: { safeVm?: { Script?: unknown } } }).prototype?.safeVm;
  if (typeof vm?.Script !== 'function') {
    throw new Error(
      'jsonpath-plus no longer exposes its safe evaluator; review core/expressions/jsonpath.ts',
    );
  }
  return vm.Script as SafeScriptClass;
}

const SafeScript = safeScriptClass();

function assertPure(node: unknown, depth = 0): void {
  if (depth > 200) throw new FilterError('the JSONPath filter expression is nested too deeply');
  if (Array.isArray(node)) {
    for (const child of node) assertPure(child, depth + 1);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const type = (node as { type?: unknown }).type;
  if (typeof type === 'string' && FORBIDDEN_NODES.has(type)) {
    throw new FilterError('JSONPath filter expressions may not call functions or assign');
  }
  for (const value of Object.values(node)) assertPure(value, depth + 1);
}

/** The evaluator class jsonpath-plus instantiates per script (its `eval` option accepts a class). */
class RestrictedScript implements Script {
  private readonly inner: Script;

  constructor(code: string) {
    let inner: Script & { readonly ast?: unknown };
    try {
      inner = new SafeScript(code);
    } catch {
      throw new FilterError('the JSONPath filter expression is not valid');
    }
    // Fail closed: without the parsed tree we cannot check the script, so we do not run it.
    if (inner.ast === undefined || inner.ast === null) {
      throw new FilterError('JSONPath filter expressions are not supported');
    }
    assertPure(inner.ast);
    this.inner = inner;
  }

  runInNewContext(context: object): unknown {
    return this.inner.runInNewContext(context);
  }
}

/** Bound on jsonpath-plus' global memo (parsed paths and scripts). */
export const JSONPATH_CACHE_BOUND = 2000;
let callsSinceCheck = 0;

function boundLibraryCache(): void {
  callsSinceCheck += 1;
  if (callsSinceCheck < 64) return;
  callsSinceCheck = 0;
  const cache: unknown = JSONPath.cache;
  if (cache !== null && typeof cache === 'object' && Object.keys(cache).length > JSONPATH_CACHE_BOUND) {
    for (const key of Object.keys(cache)) delete (cache as Record<string, unknown>)[key];
  }
}

/**
 * Every value `path` selects in `input` (an empty array when none). Primitive inputs only answer `$`.
 * Throws `FilterError` for paths or scripts that cannot be evaluated; the message never carries data.
 */
export function jsonPathValues(input: unknown, path: string): unknown[] {
  if (input === null || typeof input !== 'object') {
    return path.trim() === '$' ? [input] : [];
  }
  boundLibraryCache();
  let result: unknown;
  try {
    // ignoreEvalErrors: an item a filter script cannot evaluate (e.g. `@.a.b` where `a` is missing)
    // simply does not match, instead of failing the whole query.
    result = JSONPath({
      path,
      json: input,
      wrap: true,
      eval: RestrictedScript,
      ignoreEvalErrors: true,
      resultType: 'value',
    });
  } catch (error) {
    if (error instanceof FilterError) throw error;
    throw new FilterError('the JSONPath expression could not be evaluated');
  }
  return Array.isArray(result) ? result : [];
}

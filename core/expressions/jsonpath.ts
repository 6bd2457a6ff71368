/**
 * The `json` filter's JSONPath evaluation (jsonpath-plus, Goessner syntax), hardened for user input:
 *
 * - Filter and script expressions (`?(@.price < 10)`, `(@.length-1)`) go through jsonpath-plus'
 *   public `eval` option to our own evaluator: parsed with jsep (the parser jsonpath-plus' safe mode
 *   uses, with the same plugins), then run over the tree without `eval` or `vm`. It knows only
 *   comparisons, arithmetic, logic, conditionals, array literals and property reads: any script
 *   that calls a function or assigns (`@.title.repeat(1e9)`, `@.items.push(1)`, `a = 1; …`) is
 *   refused, since calls are how a script would burn memory or mutate data, and a node it does not
 *   know fails closed.
 * - jsonpath-plus memoises every parsed path and script in a process-wide object that never shrinks;
 *   we empty it when it grows past a bound, so user-supplied paths cannot grow memory without end.
 */
import jsepAssignment from '@jsep-plugin/assignment';
import jsepRegex from '@jsep-plugin/regex';
import jsep from 'jsep';
import { JSONPath } from 'jsonpath-plus';
import { FilterError } from './filter-error.ts';

// As jsonpath-plus' safe mode parses (registering twice is harmless: jsep keeps one of each).
jsep.plugins.register(jsepRegex, jsepAssignment);
jsep.addUnaryOp('typeof');
jsep.addLiteral('null', null);
jsep.addLiteral('undefined', undefined);

type Node = jsep.Expression;
type Scope = Readonly<Record<string, unknown>>;

const REFUSED_NODES = new Set([
  'CallExpression',
  'NewExpression',
  'AssignmentExpression',
  'UpdateExpression',
  'Compound',
  'SequenceExpression',
]);

/** Reads that would reach a prototype's machinery rather than the data's own properties. */
const BLOCKED_PROPERTIES = new Set(['constructor', '__proto__', '__defineGetter__', '__defineSetter__']);

const BINARY: Readonly<Record<string, (a: unknown, b: () => unknown) => unknown>> = {
  '||': (a, b) => a || b(),
  '&&': (a, b) => a && b(),
  '|': (a, b) => (a as number) | (b() as number),
  '^': (a, b) => (a as number) ^ (b() as number),
  '&': (a, b) => (a as number) & (b() as number),
  '==': (a, b) => a == b(),
  '!=': (a, b) => a != b(),
  '===': (a, b) => a === b(),
  '!==': (a, b) => a !== b(),
  '<': (a, b) => (a as number) < (b() as number),
  '>': (a, b) => (a as number) > (b() as number),
  '<=': (a, b) => (a as number) <= (b() as number),
  '>=': (a, b) => (a as number) >= (b() as number),
  '<<': (a, b) => (a as number) << (b() as number),
  '>>': (a, b) => (a as number) >> (b() as number),
  '>>>': (a, b) => (a as number) >>> (b() as number),
  '+': (a, b) => (a as number) + (b() as number),
  '-': (a, b) => (a as number) - (b() as number),
  '*': (a, b) => (a as number) * (b() as number),
  '/': (a, b) => (a as number) / (b() as number),
  '%': (a, b) => (a as number) % (b() as number),
};

const UNARY: Readonly<Record<string, (a: unknown) => unknown>> = {
  '-': (a) => -(a as number),
  '!': (a) => !a,
  '~': (a) => ~(a as number),
  '+': (a) => +(a as number),
  typeof: (a) => typeof a,
};

function assertPure(node: unknown, depth = 0): void {
  if (depth > 200) throw new FilterError('the JSONPath filter expression is nested too deeply');
  if (Array.isArray(node)) {
    for (const child of node) assertPure(child, depth + 1);
    return;
  }
  if (node === null || typeof node !== 'object' || node instanceof RegExp) return;
  const type = (node as { type?: unknown }).type;
  if (typeof type === 'string' && REFUSED_NODES.has(type)) {
    throw new FilterError('JSONPath filter expressions may not call functions or assign');
  }
  for (const value of Object.values(node)) assertPure(value, depth + 1);
}

const NO_NAMES: Scope = Object.freeze(Object.create(null) as Record<string, unknown>);

/**
 * The value of a checked tree. A failure throws; jsonpath-plus (with `ignoreEvalErrors`) then
 * counts the item as not matching.
 */
function evaluateNode(node: Node, scope: Scope): unknown {
  switch (node.type) {
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const { operator, left, right } = node as jsep.BinaryExpression;
      const apply = BINARY[operator];
      if (apply === undefined) throw new SyntaxError(`unknown operator ${operator}`);
      return apply(evaluateNode(left, scope), () => evaluateNode(right, scope));
    }
    case 'ConditionalExpression': {
      const { test, consequent, alternate } = node as jsep.ConditionalExpression;
      return evaluateNode(test, scope) ? evaluateNode(consequent, scope) : evaluateNode(alternate, scope);
    }
    case 'Identifier': {
      const { name } = node as jsep.Identifier;
      if (Object.hasOwn(scope, name)) return scope[name];
      throw new ReferenceError(`${name} is not defined`);
    }
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      // A computed name is evaluated without the script's names: `@['a']` reads a, `@[x]` fails.
      const name = String(
        member.computed ? evaluateNode(member.property, NO_NAMES) : (member.property as jsep.Identifier).name,
      );
      const object = evaluateNode(member.object, scope);
      if (object === undefined || object === null) throw new TypeError(`cannot read ${name} of ${object}`);
      if (!Object.hasOwn(object, name) && BLOCKED_PROPERTIES.has(name)) {
        throw new TypeError(`cannot read ${name}`);
      }
      return (object as Record<string, unknown>)[name];
    }
    case 'UnaryExpression': {
      const { operator, argument } = node as jsep.UnaryExpression;
      const apply = UNARY[operator];
      if (apply === undefined) throw new SyntaxError(`unknown operator ${operator}`);
      return apply(evaluateNode(argument, scope));
    }
    case 'ArrayExpression':
      return (node as jsep.ArrayExpression).elements.map((element) =>
        element === null ? undefined : evaluateNode(element, scope),
      );
    default:
      throw new SyntaxError(`unexpected ${node.type}`);
  }
}

/**
 * The evaluator jsonpath-plus instantiates per script (its `eval` option accepts a class with
 * `runInNewContext`). The code arrives with `@` already rewritten to jsonpath-plus' names.
 */
class RestrictedScript {
  private readonly tree: Node;

  constructor(code: string) {
    let tree: Node;
    try {
      tree = jsep(code);
    } catch {
      throw new FilterError('the JSONPath filter expression is not valid');
    }
    assertPure(tree);
    this.tree = tree;
  }

  runInNewContext(context: object): unknown {
    return evaluateNode(this.tree, Object.assign(Object.create(null) as Record<string, unknown>, context));
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

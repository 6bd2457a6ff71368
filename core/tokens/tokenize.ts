/**
 * POST /tokenize (service interface "Tokenize"): the request is walked
 * once, before anything is written, into a plan:
 * - an object with both `type` and `data` is a token definition → replaced by the token's view;
 * - any other object is traversed member by member, an array element by element;
 * - a string, number or boolean becomes a `token` token → replaced by its id;
 * - `null` stays `null` (it is no value, and `token` data may not be null).
 * Every definition is checked and its expressions evaluated up front, so one 400 reports every
 * problem, each under its JSON path (`card.data.number`, `[2].expires_at`). The service then
 * creates the tokens in order in one transaction (all or nothing) and `assemble` rebuilds the
 * request's shape around the results.
 *
 * Limits: at most 1000 tokens per request, 10,000 values outside token definitions (containers
 * and nulls included) and 32 levels of nesting (400 under `body`). They are checked first by a walk
 * that stops at the first limit passed (`checkTokenizeShape`), before any per-token work, so a
 * body of 60,000 keys costs a walk over 10,001 values, not 60,000 token checks.
 */
import { validationError } from '../errors/catalogue.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { CreateTokenResult } from './contract.ts';
import { checkCreateRequest, collectInto, deriveValues, joinField } from './token-input.ts';
import type { CheckedCreate, Derived } from './token-input.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { keyedRecord } from '../validation/keyed-record.ts';
import { EventLoopTurns } from '../threads/event-loop-turns.ts';

export const MAX_TOKENIZE_TOKENS = 1000;
export const MAX_TOKENIZE_DEPTH = 32;
/** Values walked outside token definitions: room for every token, ten times over. */
export const MAX_TOKENIZE_VALUES = 10 * MAX_TOKENIZE_TOKENS;

export interface PlannedToken {
  /** JSON path for error messages; '' for the request itself. */
  readonly path: string;
  readonly checked: CheckedCreate;
  readonly derived: Derived;
  /** A definition is answered with the token view, a primitive with the id. */
  readonly definition: boolean;
}

type Shape =
  | { readonly kind: 'null' }
  | { readonly kind: 'token'; readonly index: number }
  | { readonly kind: 'array'; readonly items: readonly Shape[] }
  | { readonly kind: 'object'; readonly entries: ReadonlyArray<readonly [string, Shape]> };

export interface TokenizePlan {
  readonly tokens: readonly PlannedToken[];
  /** The response: the request's shape with each token replaced by its view or id. */
  assemble(results: readonly CreateTokenResult[]): unknown;
}

export function isTokenDefinition(value: Record<string, unknown>): boolean {
  return Object.hasOwn(value, 'type') && Object.hasOwn(value, 'data');
}

/**
 * Throws the 400 of the first shape limit `body` passes (tokens, values, depth). Stops there: its
 * work is bounded by the limits, not by the size of the body.
 */
export function checkTokenizeShape(body: unknown): void {
  const tooMany = `must hold at most ${MAX_TOKENIZE_VALUES} values outside token definitions`;
  let tokens = 0;
  // Counted as they are found, so no more than the limit is ever pushed.
  let values = 1;
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value: body, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth } = next;
    if (depth > MAX_TOKENIZE_DEPTH) refuse(`must not be nested deeper than ${MAX_TOKENIZE_DEPTH} levels`);
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      values += value.length;
      if (values > MAX_TOKENIZE_VALUES) refuse(tooMany);
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
    } else if (isPlainObject(value) && !isTokenDefinition(value)) {
      for (const key in value) {
        values += 1;
        if (values > MAX_TOKENIZE_VALUES) refuse(tooMany);
        stack.push({ value: value[key], depth: depth + 1 });
      }
    } else {
      tokens += 1;
      if (tokens > MAX_TOKENIZE_TOKENS) refuse(`must hold at most ${MAX_TOKENIZE_TOKENS} tokens`);
    }
  }
}

function refuse(message: string): never {
  throw validationError({ body: [message] });
}

/** A token found in the request: where, whether a definition, and its create request. */
interface Found {
  readonly path: string;
  readonly definition: boolean;
  readonly request: unknown;
}

/** The request's shape below `value`, collecting its tokens into `found` (in order). */
function shapeOf(value: unknown, path: string, found: Found[]): Shape {
  if (value === null || value === undefined) return { kind: 'null' };
  if (Array.isArray(value)) {
    return { kind: 'array', items: value.map((item, i) => shapeOf(item, `${path}[${i}]`, found)) };
  }
  if (isPlainObject(value) && !isTokenDefinition(value)) {
    return {
      kind: 'object',
      entries: Object.entries(value).map(([key, member]) => [
        key,
        shapeOf(member, joinField(path, key), found),
      ]),
    };
  }
  const definition = isPlainObject(value);
  found.push({ path, definition, request: definition ? value : { type: 'token', data: value } });
  return { kind: 'token', index: found.length - 1 };
}

/** The response below `node`: each token replaced by its view (a definition) or its id. */
function assembled(
  node: Shape,
  tokens: readonly PlannedToken[],
  results: readonly CreateTokenResult[],
): unknown {
  switch (node.kind) {
    case 'null':
      return null;
    case 'token': {
      const result = results[node.index];
      if (result === undefined) throw new Error('tokenize: a planned token has no result');
      return tokens[node.index]!.definition ? result.token : result.token.id;
    }
    case 'array':
      return node.items.map((item) => assembled(item, tokens, results));
    case 'object': {
      const out = keyedRecord<unknown>();
      for (const [key, member] of node.entries) out[key] = assembled(member, tokens, results);
      return out;
    }
  }
}

/**
 * Walks the request; throws one 400 with every problem found. The shape is checked first
 * (`checkTokenizeShape`); then each token is checked and its expressions evaluated, yielding the
 * event loop between tokens whenever a slice of time is used up (core/threads/event-loop-turns.ts).
 */
export async function planTokenize(body: unknown, now: Date): Promise<TokenizePlan> {
  checkTokenizeShape(body);
  const found: Found[] = [];
  const shape = shapeOf(body, '', found);
  const errors = new FieldErrorCollector();
  const tokens: PlannedToken[] = [];
  const turns = new EventLoopTurns();
  for (const { path, definition, request } of found) {
    await turns.due();
    try {
      const checked = checkCreateRequest(request, now, path);
      const derived = deriveValues(checked, path);
      tokens.push({ path, checked, derived, definition });
    } catch (error) {
      // With an error nothing is assembled: the whole request fails with every problem.
      collectInto(errors, error);
    }
  }
  if (!errors.empty) throw validationError(errors.errors);

  return {
    tokens,
    assemble(results) {
      return assembled(shape, tokens, results);
    },
  };
}

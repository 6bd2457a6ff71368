/**
 * Expressions of the tokens feature: Liquid templates over a token's `data`
 * (and `metadata` for fingerprints), with the custom filters of docs/expressions.md. Pure: no storage, no keys.
 *
 * API (all synchronous; every failure is VaultError VALIDATION_FAILED, 400, with a field-errors map
 * whose messages never contain token data):
 *
 * - `evaluate(expression, scope, field?)` → unknown. A template that is exactly one `{{ … }}` output
 *   yields that output's value (object, array, number, boolean, string; `null` when missing); any other
 *   template renders to a string.
 * - `evaluateToString(expression, scope, field?)` → string | null: the value as text (objects and arrays
 *   as compact JSON), `null` for a missing value.
 * - `validateExpression(expression)` → the parse error message, or null when valid.
 * - `assertExpression(expression, field)`: throws 400 naming `field` when invalid.
 * - `validateMask(mask, field?)` → FieldErrors; `evaluateMask(mask, data, field?)` → the masked value. A
 *   mask is `null` (no mask), an expression string, or an object/array whose leaf strings are
 *   expressions (numbers, booleans and nulls are literal); properties left out of the mask are absent
 *   from the result, i.e. redacted.
 * - `fingerprintInput(expression, data, metadata?, field?)` → string | null: the text the caller
 *   keyed-hashes (together with the token type) into the fingerprint; `null` when the expression yields
 *   nothing, in which case the token gets no fingerprint.
 * - `evaluateSearchIndexes(expressions, data, field?)` → string[], one value per expression, in order;
 *   each must be non-empty, else 400 naming `search_indexes[i]`. Values may repeat (e.g. an SSN without
 *   dashes under the raw and the "no dashes" index); the caller stores distinct values.
 * - `evaluateAlias(idExpression, data, isTaken, options?)` → a token id: the alias expression is
 *   re-evaluated up to `attempts` (10) times until `isTaken` says the id is free, then a random UUID is
 *   used. The caller still validates the id's shape (`core/tokens/token-id.ts`).
 * - `isExpression(text)`: whether a string contains Liquid markup (`{{` or `{%`).
 *
 * Budgets (budget.ts): every render is also charged to shared budgets, so many expressions together
 * stay bounded: `evaluateMask` defaults to a stored-mask budget (what one read of a stored mask may
 * cost), the others take an optional budget (callers pass a token's), and all of them charge the
 * current request's budget when there is one.
 *
 * The module-level functions use one shared `ExpressionEngine` (LRU of 1000 parsed templates, 4 KiB
 * per expression); build another engine for other limits. See docs/expressions.md.
 */
import { randomUUID } from 'node:crypto';
import { isVaultError, validationError } from '../errors/catalogue.ts';
import type { FieldErrors } from '../errors/catalogue.ts';
import { storedMaskBudget } from './budget.ts';
import type { ExpressionBudget } from './budget.ts';
import { ExpressionEngine } from './engine.ts';
import type { ExpressionScope } from './engine.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

export {
  BudgetExceededError,
  ExpressionBudget,
  FILTER_STEPS,
  REQUEST_EXPRESSION_LIMITS,
  STORED_MASK_LIMITS,
  TOKEN_EXPRESSION_LIMITS,
  currentRequestBudget,
  requestBudget,
  runWithRequestBudget,
  storedMaskBudget,
  tokenBudget,
} from './budget.ts';
export type { BudgetLimits } from './budget.ts';

export {
  DEFAULT_CACHE_SIZE,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_RENDER_TIME_LIMIT_MS,
  ExpressionEngine,
  MAX_EXPRESSION_BYTES,
  REMOVED_TAGS,
} from './engine.ts';
export type { ExpressionEngineOptions, ExpressionScope } from './engine.ts';
export { CUSTOM_FILTER_NAMES } from './filters.ts';
export { REVEAL_LAST_KEPT_SEPARATORS } from './text.ts';

/** Longest `fingerprint_expression` accepted (characters), the API's published limit. */
export const MAX_FINGERPRINT_EXPRESSION_LENGTH = 400;
/** Search index expressions per token, the API's published limit. */
export const MAX_SEARCH_INDEXES = 10;
/** Alias attempts before falling back to a random UUID. */
export const ALIAS_ATTEMPTS = 10;
/** Deepest object/array nesting accepted in a mask. */
export const MAX_MASK_DEPTH = 32;
/** Most leaves (expressions and literals) in one mask. */
export const MAX_MASK_LEAVES = 100;
/**
 * Most UTF-8 bytes of all the expressions of one mask together. This bounds what a read has to
 * parse when the template cache is cold: a list page of 100 masked tokens parses at most 200 KiB.
 */
export const MAX_MASK_BYTES = 2048;
/**
 * Most UTF-8 bytes of all the expressions of one token together: mask leaves, fingerprint
 * expression, search indexes and alias id.
 */
export const MAX_TOKEN_EXPRESSION_BYTES = 16_384;

const engine = new ExpressionEngine();

/** The shared engine behind the module-level functions. */
export function defaultEngine(): ExpressionEngine {
  return engine;
}

export function isExpression(text: string): boolean {
  return text.includes('{{') || text.includes('{%');
}

export function evaluate(
  expression: string,
  scope: ExpressionScope,
  field = 'expression',
  budget?: ExpressionBudget,
): unknown {
  return budget === undefined
    ? engine.evaluate(expression, scope, field)
    : engine.evaluate(expression, scope, field, budget);
}

/** A value as text: strings as they are, numbers and booleans printed, objects/arrays as JSON. */
export function expressionText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? null;
}

export function evaluateToString(
  expression: string,
  scope: ExpressionScope,
  field = 'expression',
  budget?: ExpressionBudget,
): string | null {
  return expressionText(evaluate(expression, scope, field, budget));
}

/** UTF-8 bytes of every expression string in `value` (a mask, a list of expressions, one expression). */
export function expressionBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (value === null || typeof value !== 'object' || depth > MAX_MASK_DEPTH) return 0;
  let total = 0;
  for (const item of Object.values(value)) total += expressionBytes(item, depth + 1);
  return total;
}

export function validateExpression(expression: unknown): string | null {
  return engine.validate(expression);
}

export function assertExpression(expression: unknown, field: string): void {
  const problem = engine.validate(expression);
  if (problem !== null) throw validationError({ [field]: [problem] });
}

function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function mergeErrors(errors: FieldErrors, error: unknown): void {
  if (isVaultError(error, 'VALIDATION_FAILED') && error.errors !== undefined) {
    for (const [field, messages] of Object.entries(error.errors)) {
      for (const message of messages) addError(errors, field, message);
    }
    return;
  }
  throw error;
}

/** Leaves (expressions and literals) of a mask, counted without parsing; stops past the cap. */
function maskLeaves(node: unknown, depth = 0): number {
  if (node === null || typeof node !== 'object') return 1;
  if (depth > MAX_MASK_DEPTH) return 0;
  let count = 0;
  for (const item of Object.values(node)) {
    count += maskLeaves(item, depth + 1);
    if (count > MAX_MASK_LEAVES) break;
  }
  return count;
}

/**
 * Shape and parse errors of a mask, keyed `mask`, `mask.name.first`, `mask[0]` … The leaf and size
 * caps are checked before any leaf is parsed.
 */
export function validateMask(mask: unknown, field = 'mask'): FieldErrors {
  if (mask === undefined) return {};
  if (maskLeaves(mask) > MAX_MASK_LEAVES) {
    return { [field]: [`must have at most ${MAX_MASK_LEAVES} leaves (expressions and literals)`] };
  }
  if (expressionBytes(mask) > MAX_MASK_BYTES) {
    return { [field]: [`must be at most ${MAX_MASK_BYTES} bytes of expressions in total`] };
  }
  const errors: FieldErrors = {};
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > MAX_MASK_DEPTH) {
      addError(errors, path, `is nested deeper than ${MAX_MASK_DEPTH} levels`);
      return;
    }
    if (node === null || typeof node === 'number' || typeof node === 'boolean') return;
    if (typeof node === 'string') {
      const problem = engine.validate(node);
      if (problem !== null) addError(errors, path, problem);
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
      return;
    }
    if (typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) walk(value, `${path}.${key}`, depth + 1);
      return;
    }
    addError(errors, path, 'must be an expression string, an object or an array');
  };
  walk(mask, field, 0);
  return errors;
}

/**
 * The masked view of `data`; `null` when there is no mask. Errors are collected per leaf. All leaves
 * share `budget`: by default what one read of a stored mask may cost, under the request's budget.
 */
export function evaluateMask(
  mask: unknown,
  data: unknown,
  field = 'mask',
  budget: ExpressionBudget = storedMaskBudget(),
): unknown {
  if (mask === null || mask === undefined) return null;
  const errors: FieldErrors = {};
  const result = maskedNode(mask, field, 0, data, budget, errors);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return result;
}

/** One node of a mask over `data`; errors are collected per leaf (a module function: no closure per read). */
function maskedNode(
  node: unknown,
  path: string,
  depth: number,
  data: unknown,
  budget: ExpressionBudget,
  errors: FieldErrors,
): unknown {
  if (depth > MAX_MASK_DEPTH) {
    addError(errors, path, `is nested deeper than ${MAX_MASK_DEPTH} levels`);
    return null;
  }
  if (node === null || typeof node === 'number' || typeof node === 'boolean') return node;
  if (typeof node === 'string') {
    try {
      return engine.evaluate(node, { data }, path, budget);
    } catch (error) {
      mergeErrors(errors, error);
      return null;
    }
  }
  if (Array.isArray(node)) {
    return node.map((item, i) => maskedNode(item, `${path}[${i}]`, depth + 1, data, budget, errors));
  }
  if (typeof node === 'object') {
    const out = keyedRecord<unknown>();
    for (const [key, value] of Object.entries(node)) {
      out[key] = maskedNode(value, `${path}.${key}`, depth + 1, data, budget, errors);
    }
    return out;
  }
  addError(errors, path, 'must be an expression string, an object or an array');
  return null;
}

export function fingerprintInput(
  expression: string,
  data: unknown,
  metadata?: Readonly<Record<string, string>>,
  field = 'fingerprint_expression',
  budget?: ExpressionBudget,
): string | null {
  if (typeof expression === 'string' && expression.length > MAX_FINGERPRINT_EXPRESSION_LENGTH) {
    throw validationError({ [field]: [`must be at most ${MAX_FINGERPRINT_EXPRESSION_LENGTH} characters`] });
  }
  const text = expressionText(evaluate(expression, { data, metadata: metadata ?? {} }, field, budget));
  return text === null || text === '' ? null : text;
}

export function evaluateSearchIndexes(
  expressions: readonly unknown[],
  data: unknown,
  field = 'search_indexes',
  budget?: ExpressionBudget,
): string[] {
  if (!Array.isArray(expressions)) throw validationError({ [field]: ['must be an array of expressions'] });
  if (expressions.length > MAX_SEARCH_INDEXES) {
    throw validationError({ [field]: [`must contain at most ${MAX_SEARCH_INDEXES} expressions`] });
  }
  const errors: FieldErrors = {};
  const values: string[] = [];
  expressions.forEach((expression, i) => {
    const name = `${field}[${i}]`;
    if (typeof expression !== 'string') {
      addError(errors, name, 'must be an expression string');
      return;
    }
    try {
      const text = expressionText(evaluate(expression, { data }, name, budget));
      if (text === null || text === '') addError(errors, name, 'must produce a non-empty value');
      else values.push(text);
    } catch (error) {
      mergeErrors(errors, error);
    }
  });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return values;
}

export interface AliasOptions {
  /** Evaluations tried before the UUID fallback. Default 10. */
  readonly attempts?: number;
  /** Field named in errors. Default `id`. */
  readonly field?: string;
  /** Budget every attempt is charged to. Default: the request's, if any. */
  readonly budget?: ExpressionBudget;
}

export function evaluateAlias(
  idExpression: string,
  data: unknown,
  isTaken: (id: string) => boolean,
  options: AliasOptions = {},
): string {
  const attempts = options.attempts ?? ALIAS_ATTEMPTS;
  const field = options.field ?? 'id';
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const candidate = expressionText(evaluate(idExpression, { data }, field, options.budget));
    if (candidate === null || candidate === '') {
      throw validationError({ [field]: ['the alias expression produced no value'] });
    }
    if (!isTaken(candidate)) return candidate;
  }
  return randomUUID();
}

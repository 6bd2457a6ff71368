/**
 * Checks a token definition (POST /tokens, or one inside POST /tokenize) before anything is
 * written, and evaluates what the expressions derive from it (mask, fingerprint input, search
 * index values). Everything here is pure: no storage, no keys. Every problem is collected and
 * thrown as one 400 whose field names carry `prefix` (e.g. `card.data.number` inside tokenize).
 */
import { isContainer } from '../access/containers.ts';
import { VaultError, isVaultError, validationError } from '../errors/catalogue.ts';
import type { FieldErrors } from '../errors/catalogue.ts';
import {
  MAX_FINGERPRINT_EXPRESSION_LENGTH,
  MAX_SEARCH_INDEXES,
  MAX_TOKEN_EXPRESSION_BYTES,
  currentRequestBudget,
  evaluateAlias,
  evaluateMask,
  evaluateSearchIndexes,
  expressionBytes,
  fingerprintInput,
  isExpression,
  storedMaskBudget,
  tokenBudget,
  validateExpression,
  validateMask,
} from '../expressions/index.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import { checkExpiresAt } from './expiry.ts';
import type { Expiry } from './expiry.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { checkMetadata } from './metadata.ts';
import { containerWithPrivacy } from './privacy.ts';
import { validateTokenId } from './token-id.ts';
import { TOKEN_TYPES, isTokenType, unknownTokenType } from './token-types.ts';
import type { MaskTemplate, TokenTypeDefinition } from './token-types.ts';

/** What a token stores, checked: the request's values or the type's defaults. */
export interface TokenSpec {
  readonly definition: TokenTypeDefinition;
  readonly data: unknown;
  readonly mask: MaskTemplate;
  readonly fingerprintExpression: string;
  readonly container: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly searchIndexes: readonly string[];
  readonly expiry: Expiry | null;
}

export type IdSpec =
  | { readonly kind: 'uuid' }
  | { readonly kind: 'literal'; readonly id: string }
  | { readonly kind: 'alias'; readonly expression: string };

export interface CheckedCreate extends TokenSpec {
  readonly id: IdSpec;
  /** The request's `deduplicate_token`; undefined = the tenant setting decides. */
  readonly deduplicate: boolean | undefined;
}

/** Values the expressions derive from the data. Plaintext-derived: kept in memory only. */
export interface Derived {
  /** The evaluated mask (null when the token has none). */
  readonly masked: unknown;
  /** The text to keyed-hash into the fingerprint; null = no fingerprint. */
  readonly fingerprintInput: string | null;
  /** One value per search index expression. */
  readonly searchValues: readonly string[];
}

export function joinField(prefix: string, field: string): string {
  if (prefix === '') return field;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}

export function prefixErrors(errors: FieldErrors, prefix: string): FieldErrors {
  if (prefix === '') return errors;
  const out: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors)) out[joinField(prefix, field)] = [...messages];
  return out;
}

/** Runs `fn`; a validation failure is rethrown with its field names under `prefix`. */
export async function underPrefix<T>(prefix: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw prefixed(error, prefix);
  }
}

/** `underPrefix` for synchronous work (no promise per call on a path run per token). */
export function underPrefixSync<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw prefixed(error, prefix);
  }
}

function prefixed(error: unknown, prefix: string): unknown {
  if (prefix !== '' && isVaultError(error, 'VALIDATION_FAILED') && error.errors !== undefined) {
    return validationError(prefixErrors(error.errors, prefix), error.message);
  }
  return error;
}

/** Adds a thrown validation failure's field errors to `errors`; rethrows anything else. */
export function collectInto(errors: FieldErrorCollector, error: unknown): void {
  if (isVaultError(error, 'VALIDATION_FAILED') && error.errors !== undefined) {
    errors.merge(error.errors);
    return;
  }
  throw error;
}

const absent = (value: unknown): boolean => value === undefined || value === null;

/** `containers`: absent or empty → the type's default; at most one valid container path. */
export function checkContainers(errors: FieldErrorCollector, input: unknown, fallback: string): string {
  if (absent(input)) return fallback;
  if (!Array.isArray(input)) {
    errors.add('containers', 'must be an array with one container path');
    return fallback;
  }
  if (input.length === 0) return fallback;
  if (input.length > 1) {
    errors.add('containers', 'a token is in exactly one container: give at most one');
    return fallback;
  }
  const [container] = input as unknown[];
  if (typeof container !== 'string' || !isContainer(container)) {
    errors.add('containers[0]', "must be a path that starts and ends with '/' (e.g. /pci/high/)");
    return fallback;
  }
  return container;
}

/** `mask`: any type may have its own (absent → the type's default; null → no mask). */
export function checkMask(
  errors: FieldErrorCollector,
  input: unknown,
  definition: TokenTypeDefinition,
): MaskTemplate {
  if (input === undefined) return definition.mask;
  if (input === null) return null;
  const problems = validateMask(input);
  errors.merge(problems);
  return Object.keys(problems).length === 0 ? (input as MaskTemplate) : null;
}

export function checkFingerprintExpression(
  errors: FieldErrorCollector,
  input: unknown,
  definition: TokenTypeDefinition,
): string {
  if (absent(input)) return definition.fingerprintExpression;
  if (typeof input !== 'string') {
    errors.add('fingerprint_expression', 'must be an expression string');
    return definition.fingerprintExpression;
  }
  if (input.length > MAX_FINGERPRINT_EXPRESSION_LENGTH) {
    errors.add('fingerprint_expression', `must be at most ${MAX_FINGERPRINT_EXPRESSION_LENGTH} characters`);
  } else {
    const problem = validateExpression(input);
    if (problem !== null) errors.add('fingerprint_expression', problem);
  }
  return input;
}

/** `search_indexes`: only for `token`, SSN and EIN; absent → the type's default. */
export function checkSearchIndexes(
  errors: FieldErrorCollector,
  input: unknown,
  definition: TokenTypeDefinition,
): readonly string[] {
  if (absent(input)) return definition.defaultSearchIndexes;
  // An empty list supplies nothing, so it is accepted everywhere (responses show `[]` on every type).
  if (Array.isArray(input) && input.length === 0) return [];
  if (!definition.searchIndexesAllowed) {
    errors.add('search_indexes', `the ${definition.type} type does not support search indexes`);
    return [];
  }
  if (!Array.isArray(input)) {
    errors.add('search_indexes', 'must be an array of expressions');
    return [];
  }
  if (input.length > MAX_SEARCH_INDEXES) {
    errors.add('search_indexes', `must contain at most ${MAX_SEARCH_INDEXES} expressions`);
    return [];
  }
  const out: string[] = [];
  (input as unknown[]).forEach((expression, i) => {
    if (typeof expression !== 'string') {
      errors.add(`search_indexes[${i}]`, 'must be an expression string');
      return;
    }
    const problem = validateExpression(expression);
    if (problem !== null) errors.add(`search_indexes[${i}]`, problem);
    out.push(expression);
  });
  return out;
}

export function checkExpiry(errors: FieldErrorCollector, input: unknown, now: Date): Expiry | null {
  if (absent(input)) return null;
  try {
    return checkExpiresAt(input, now);
  } catch (error) {
    collectInto(errors, error);
    return null;
  }
}

function checkId(errors: FieldErrorCollector, input: unknown): IdSpec {
  if (absent(input)) return { kind: 'uuid' };
  if (typeof input !== 'string') {
    errors.add('id', 'must be a string');
    return { kind: 'uuid' };
  }
  if (isExpression(input)) {
    const problem = validateExpression(input);
    if (problem !== null) errors.add('id', problem);
    return { kind: 'alias', expression: input };
  }
  const problem = validateTokenId(input);
  if (problem !== null) errors.add('id', problem);
  return { kind: 'literal', id: input };
}

/** Checks one token definition; throws 400 with every problem, field names under `prefix`. */
export function checkCreateRequest(request: unknown, now: Date, prefix = ''): CheckedCreate {
  const errors = new FieldErrorCollector();
  const body: Record<string, unknown> = isPlainObject(request) ? request : {};
  if (!isPlainObject(request)) errors.add('data', 'is required');
  const typeName = absent(body.type) ? 'token' : body.type;
  if (!isTokenType(typeName)) {
    errors.add('type', unknownTokenType(typeName));
    throw validationError(prefixErrors(errors.errors, prefix));
  }
  const definition = TOKEN_TYPES[typeName];
  if (isPlainObject(request)) errors.merge(definition.validate(body.data));
  const checked: CheckedCreate = {
    definition,
    id: checkId(errors, body.id),
    data: body.data,
    mask: checkMask(errors, body.mask, definition),
    fingerprintExpression: checkFingerprintExpression(errors, body.fingerprint_expression, definition),
    container: containerWithPrivacy(
      errors,
      body.privacy,
      body.containers,
      checkContainers(errors, body.containers, definition.defaultContainer),
    ),
    metadata: checkMetadata(errors, body.metadata),
    searchIndexes: checkSearchIndexes(errors, body.search_indexes, definition),
    expiry: checkExpiry(errors, body.expires_at, now),
    deduplicate: checkDeduplicate(errors, body.deduplicate_token),
  };
  if (!errors.empty) throw validationError(prefixErrors(errors.errors, prefix));
  return checked;
}

export function checkDeduplicate(errors: FieldErrorCollector, input: unknown): boolean | undefined {
  if (absent(input)) return undefined;
  if (typeof input !== 'boolean') {
    errors.add('deduplicate_token', 'must be true or false');
    return undefined;
  }
  return input;
}

/** The alias expression of a create, if it has one. */
function aliasOf(spec: TokenSpec): string | undefined {
  const id = (spec as Partial<CheckedCreate>).id;
  return id?.kind === 'alias' ? id.expression : undefined;
}

/**
 * Evaluates the mask, the fingerprint expression and the search indexes over the data (400s).
 *
 * Cost rules, checked here because every write (create, tokenize, update) passes through:
 * - all expressions of the token together are at most MAX_TOKEN_EXPRESSION_BYTES;
 * - they share one token budget (which charges the request's);
 * - the mask is a dry run under the stored-mask budget, the same budget every later read of the
 *   token gets, so a mask stored now never costs a reader more than that (its cost depends only on
 *   the data, and the data is only changed by a write, which runs this again);
 * - an alias id expression is evaluated once too, so an expensive one is refused before the
 *   transaction that will evaluate it again.
 * Once the request's budget is spent, the next token stops the whole request with one 400 (no
 * field map): a tokenize of a thousand tokens then costs no more than its budget.
 */
export function deriveValues(spec: TokenSpec, prefix = ''): Derived {
  const spent = currentRequestBudget()?.exhausted;
  if (spent !== undefined) throw new VaultError('VALIDATION_FAILED', `The request was refused: ${spent}.`);
  const errors = new FieldErrorCollector();
  const alias = aliasOf(spec);
  const bytes =
    expressionBytes(spec.mask) +
    expressionBytes(spec.fingerprintExpression) +
    expressionBytes(spec.searchIndexes) +
    expressionBytes(alias);
  if (bytes > MAX_TOKEN_EXPRESSION_BYTES) {
    errors.add(
      'body',
      `the token's expressions (mask, fingerprint_expression, search_indexes, id) must be at most ${MAX_TOKEN_EXPRESSION_BYTES} bytes together`,
    );
    throw validationError(prefixErrors(errors.errors, prefix));
  }
  const budget = tokenBudget();
  let masked: unknown = null;
  let input: string | null = null;
  let searchValues: readonly string[] = [];
  try {
    masked = evaluateMask(spec.mask, spec.data, 'mask', storedMaskBudget(budget));
  } catch (error) {
    collectInto(errors, error);
  }
  try {
    input = fingerprintInput(spec.fingerprintExpression, spec.data, spec.metadata, undefined, budget);
  } catch (error) {
    collectInto(errors, error);
  }
  try {
    searchValues = evaluateSearchIndexes(spec.searchIndexes, spec.data, undefined, budget);
  } catch (error) {
    collectInto(errors, error);
  }
  if (alias !== undefined) {
    try {
      evaluateAlias(alias, spec.data, () => false, { budget, attempts: 1 });
    } catch (error) {
      collectInto(errors, error);
    }
  }
  if (!errors.empty) throw validationError(prefixErrors(errors.errors, prefix));
  return { masked, fingerprintInput: input, searchValues };
}

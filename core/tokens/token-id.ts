/**
 * Token ids: a random v4 UUID by default; a caller-supplied id is 3–400
 * characters without `# / \ + ? [ ] | & = % < > { } ^`; an id containing Liquid markup is an alias
 * expression, evaluated over the token data (`evaluateAlias`, UUID fallback when no free alias is
 * found). Uniqueness of a literal id is the store's job (409 on conflict).
 */
import { randomUUID } from 'node:crypto';
import { validationError } from '../errors/catalogue.ts';
import { evaluateAlias, isExpression } from '../expressions/index.ts';

export const TOKEN_ID_MIN_LENGTH = 3;
export const TOKEN_ID_MAX_LENGTH = 400;
export const FORBIDDEN_TOKEN_ID_CHARACTERS: readonly string[] = [
  '#',
  '/',
  '\\',
  '+',
  '?',
  '[',
  ']',
  '|',
  '&',
  '=',
  '%',
  '<',
  '>',
  '{',
  '}',
  '^',
];

const FORBIDDEN = new Set(FORBIDDEN_TOKEN_ID_CHARACTERS);

/** Why `id` is not a valid token id, or null. Lengths count Unicode code points. */
export function validateTokenId(id: unknown): string | null {
  if (typeof id !== 'string') return 'must be a string';
  const chars = Array.from(id);
  if (chars.length < TOKEN_ID_MIN_LENGTH || chars.length > TOKEN_ID_MAX_LENGTH) {
    return `must be ${TOKEN_ID_MIN_LENGTH} to ${TOKEN_ID_MAX_LENGTH} characters`;
  }
  if (chars.some((c) => FORBIDDEN.has(c))) {
    return `must not contain any of ${FORBIDDEN_TOKEN_ID_CHARACTERS.join(' ')}`;
  }
  return null;
}

/**
 * The id a new token gets: a UUID when `id` is absent, the evaluated alias when `id` is an alias
 * expression, else `id` itself. Throws 400 naming `id` when the (evaluated) id is not valid.
 */
export function resolveTokenId(id: unknown, data: unknown, isTaken: (candidate: string) => boolean): string {
  if (id === undefined || id === null) return randomUUID();
  if (typeof id !== 'string') throw validationError({ id: ['must be a string'] });
  if (isExpression(id)) {
    const alias = evaluateAlias(id, data, isTaken, { field: 'id' });
    const problem = validateTokenId(alias);
    if (problem !== null)
      throw validationError({ id: [`the alias expression produced an id that ${problem}`] });
    return alias;
  }
  const problem = validateTokenId(id);
  if (problem !== null) throw validationError({ id: [problem] });
  return id;
}

/**
 * Ids are shown to every caller that sees the token, even one whose transform redacts its data, and
 * they travel in URLs, `Location` headers, request logs and the audit log. So an id may share at most
 * this many consecutive letters or digits with any value in the data (compared case-insensitively,
 * separators ignored): as much as the default masks already show (the last four), never more.
 */
export const MAX_SHARED_ID_RUN = 4;
/** Data values shorter than a run are checked whole from this length on (a 3-digit account number). */
const MIN_WHOLE_VALUE = 3;

function letterDigits(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The text values of `data` (strings and numbers, at any depth), each as letters and digits. */
function dataValues(data: unknown): string[] {
  const out: string[] = [];
  const pending: unknown[] = [data];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') out.push(letterDigits(value));
    else if (typeof value === 'number' && Number.isFinite(value)) out.push(letterDigits(String(value)));
    // One push per item: spreading a large array into push() would overflow the call stack.
    else if (Array.isArray(value)) for (const item of value as unknown[]) pending.push(item);
    else if (value !== null && typeof value === 'object')
      for (const item of Object.values(value)) pending.push(item);
  }
  return out;
}

const RUN = MAX_SHARED_ID_RUN + 1;
const HASH_BASE = 31;
/** HASH_BASE ** (RUN - 1) in 32-bit arithmetic, to take the leaving character out of a window. */
const HASH_LEAVE = Array.from({ length: RUN - 1 }).reduce<number>((pow) => Math.imul(pow, HASH_BASE), 1);

/** Polynomial hashes (mod 2^32) of every RUN-long window of `text`, in UTF-16 units. */
function runHashes(text: string): Set<number> {
  const hashes = new Set<number>();
  let hash = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (i >= RUN) hash = (hash - Math.imul(text.charCodeAt(i - RUN), HASH_LEAVE)) | 0;
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
    if (i >= RUN - 1) hashes.add(hash);
  }
  return hashes;
}

/** Whether a RUN-long window of `value` also occurs in `text` (whose window hashes are `hashes`). */
function sharesRun(value: string, text: string, hashes: ReadonlySet<number>): boolean {
  let hash = 0;
  for (let i = 0; i < value.length; i += 1) {
    if (i >= RUN) hash = (hash - Math.imul(value.charCodeAt(i - RUN), HASH_LEAVE)) | 0;
    hash = (Math.imul(hash, HASH_BASE) + value.charCodeAt(i)) | 0;
    // A hash hit is confirmed on the text: hashes may collide.
    if (i >= RUN - 1 && hashes.has(hash) && text.includes(value.slice(i - RUN + 1, i + 1))) return true;
  }
  return false;
}

/**
 * A check of candidate ids against `data`: whether an id carries a run of more than
 * MAX_SHARED_ID_RUN letters/digits of a data value, or a whole short value. The data is normalised
 * once; each check is one rolling-hash pass over it, so large data stays cheap across alias attempts.
 */
export function idDataCheck(data: unknown): (id: string) => boolean {
  const values = dataValues(data);
  return (id) => {
    const text = letterDigits(id);
    const hashes = runHashes(text);
    return values.some((value) =>
      value.length < RUN
        ? value.length >= MIN_WHOLE_VALUE && text.includes(value)
        : sharesRun(value, text, hashes),
    );
  };
}

/** `idDataCheck` for one id. */
export function idContainsData(id: string, data: unknown): boolean {
  return idDataCheck(data)(id);
}

export const ID_CONTAINS_DATA = `must not contain the token's data (more than ${MAX_SHARED_ID_RUN} consecutive letters or digits of it)`;

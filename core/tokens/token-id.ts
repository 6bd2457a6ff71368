/**
 * Token ids (behaviour reference §3.4): a random v4 UUID by default; a caller-supplied id is 3–400
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
    else if (Array.isArray(value)) pending.push(...(value as unknown[]));
    else if (value !== null && typeof value === 'object') pending.push(...Object.values(value));
  }
  return out;
}

/**
 * Whether `id` carries the data: a run of more than MAX_SHARED_ID_RUN letters/digits of a data
 * value, or a whole short value. Linear in the data: the id's runs are put in a set first.
 */
export function idContainsData(id: string, data: unknown): boolean {
  const text = letterDigits(id);
  const run = MAX_SHARED_ID_RUN + 1;
  const runs = new Set<string>();
  for (let i = 0; i + run <= text.length; i += 1) runs.add(text.slice(i, i + run));
  for (const value of dataValues(data)) {
    if (value.length < run) {
      if (value.length >= MIN_WHOLE_VALUE && text.includes(value)) return true;
      continue;
    }
    for (let i = 0; i + run <= value.length; i += 1) if (runs.has(value.slice(i, i + run))) return true;
  }
  return false;
}

export const ID_CONTAINS_DATA = `must not contain the token's data (more than ${MAX_SHARED_ID_RUN} consecutive letters or digits of it)`;

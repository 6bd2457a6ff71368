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

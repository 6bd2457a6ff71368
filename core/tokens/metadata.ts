/**
 * Token metadata: non-sensitive string → string pairs, stored and
 * returned in plaintext. Limits, small enough that metadata never becomes a second data field:
 * - keys: 1–200 characters, letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit;
 * - values: strings of at most 500 characters (empty allowed);
 * - at most 50 keys per token.
 */
import type { FieldErrorCollector } from '../validation/fields.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX_LENGTH = 200;
export const METADATA_VALUE_MAX_LENGTH = 500;
export const METADATA_KEY = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** Problems of one key, or null. Keys are not quoted back (a key might be mistaken data). */
export function metadataKeyProblem(key: string): string | null {
  if (key.length > METADATA_KEY_MAX_LENGTH)
    return `keys must be at most ${METADATA_KEY_MAX_LENGTH} characters`;
  if (!METADATA_KEY.test(key)) {
    return "keys use letters, digits, '.', '_' and '-', and start and end with a letter or digit";
  }
  return null;
}

/** The checked metadata (absent or null → `{}`); problems go to `errors` under `field`. */
export function checkMetadata(
  errors: FieldErrorCollector,
  input: unknown,
  field = 'metadata',
): Record<string, string> {
  const metadata = keyedRecord<string>();
  if (input === undefined || input === null) return metadata;
  if (!isPlainObject(input)) {
    errors.add(field, 'must be an object of string keys to string values');
    return metadata;
  }
  const entries = Object.entries(input);
  if (entries.length > METADATA_MAX_KEYS) errors.add(field, `must have at most ${METADATA_MAX_KEYS} keys`);
  for (const [key, value] of entries) {
    const keyProblem = metadataKeyProblem(key);
    if (keyProblem !== null) {
      errors.add(field, keyProblem);
      continue;
    }
    if (typeof value !== 'string') errors.add(`${field}.${key}`, 'must be a string');
    else if (value.length > METADATA_VALUE_MAX_LENGTH)
      errors.add(`${field}.${key}`, `must be at most ${METADATA_VALUE_MAX_LENGTH} characters`);
    else metadata[key] = value;
  }
  return metadata;
}

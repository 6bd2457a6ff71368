/**
 * PATCH /tokens/{id} (service interface "Tokens", RFC 7386): the token's next state from its
 * current one and a merge patch. `data`, `mask` and `metadata` merge (null removes a member;
 * `data: null` removes the data, which is then missing → 400); `containers`, `search_indexes`,
 * `fingerprint_expression` and `expires_at` are replaced (null → the type's default, or no expiry);
 * `deduplicate_token` applies to this request. `id` and `type` cannot change (400 unless the patch
 * repeats the current value). Other members are ignored, as unknown body fields are elsewhere.
 * Pure: the service loads, authorizes and writes.
 */
import { isDeepStrictEqual } from 'node:util';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { validateMask } from '../expressions/index.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { Expiry } from './expiry.ts';
import { mergePatch } from './merge-patch.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { checkMetadata } from './metadata.ts';
import {
  checkContainers,
  checkDeduplicate,
  checkExpiry,
  checkFingerprintExpression,
  checkSearchIndexes,
} from './token-input.ts';
import type { TokenSpec } from './token-input.ts';
import type { TokenRow } from './token-store.ts';
import { TOKEN_TYPES, isTokenType } from './token-types.ts';
import type { MaskTemplate } from './token-types.ts';
import { maskOf, metadataOf, searchIndexesOf } from './token-view.ts';

export interface CheckedUpdate {
  readonly spec: TokenSpec;
  readonly dataChanged: boolean;
  /** The request's `deduplicate_token`; undefined = the tenant setting decides. */
  readonly deduplicate: boolean | undefined;
  /**
   * The fields whose new value differs from the stored one and that need plaintext read access to
   * change (mask, fingerprint_expression, search_indexes, containers). Repeating a stored value
   * (a client echoing the token back) changes nothing and needs nothing.
   */
  readonly needsReveal: readonly string[];
}

const has = (patch: Readonly<Record<string, unknown>>, key: string): boolean => Object.hasOwn(patch, key);

function currentExpiry(row: TokenRow): Expiry | null {
  return row.expires_at === null ? null : { at: new Date(row.expires_at), offsetMinutes: row.expires_offset };
}

export function checkUpdate(row: TokenRow, currentData: unknown, patch: unknown, now: Date): CheckedUpdate {
  if (!isPlainObject(patch)) throw validationError({ body: ['must be a JSON merge patch object'] });
  if (!isTokenType(row.type)) throw new VaultError('VAULT_CORRUPT', 'A stored token has an unknown type.');
  const definition = TOKEN_TYPES[row.type];
  const errors = new FieldErrorCollector();

  if (has(patch, 'id') && patch.id !== row.id) errors.add('id', 'cannot be changed');
  if (has(patch, 'type') && patch.type !== row.type) errors.add('type', 'cannot be changed');

  let data = currentData;
  if (has(patch, 'data')) {
    data = mergePatch(currentData, patch.data);
    errors.merge(definition.validate(data));
  }

  let mask: MaskTemplate = maskOf(row);
  if (has(patch, 'mask')) {
    const merged = mergePatch(mask, patch.mask) ?? null;
    const problems = validateMask(merged);
    errors.merge(problems);
    if (Object.keys(problems).length === 0) mask = merged as MaskTemplate;
  }

  let metadata: Record<string, string> = metadataOf(row);
  if (has(patch, 'metadata')) {
    if (patch.metadata !== null && !isPlainObject(patch.metadata)) {
      errors.add('metadata', 'must be an object of string keys to string values (null values remove keys)');
    } else {
      metadata = checkMetadata(errors, mergePatch(metadata, patch.metadata) ?? {});
    }
  }

  const container = has(patch, 'containers')
    ? checkContainers(errors, patch.containers, definition.defaultContainer)
    : row.container;
  const searchIndexes = has(patch, 'search_indexes')
    ? checkSearchIndexes(errors, patch.search_indexes, definition)
    : searchIndexesOf(row);
  const fingerprintExpression = has(patch, 'fingerprint_expression')
    ? checkFingerprintExpression(errors, patch.fingerprint_expression, definition)
    : row.fingerprint_expression;
  const expiry = has(patch, 'expires_at') ? checkExpiry(errors, patch.expires_at, now) : currentExpiry(row);
  const deduplicate = checkDeduplicate(errors, patch.deduplicate_token);

  errors.throwIfAny();
  const changed: Array<[string, boolean]> = [
    ['mask', !isDeepStrictEqual(mask, maskOf(row))],
    ['fingerprint_expression', fingerprintExpression !== row.fingerprint_expression],
    ['search_indexes', !isDeepStrictEqual([...searchIndexes], searchIndexesOf(row))],
    ['containers', container !== row.container],
  ];
  return {
    spec: { definition, data, mask, fingerprintExpression, container, metadata, searchIndexes, expiry },
    dataChanged: has(patch, 'data'),
    deduplicate,
    needsReveal: changed.filter(([, differs]) => differs).map(([field]) => field),
  };
}

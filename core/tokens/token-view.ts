/**
 * A stored token as the API shows it. The transform decides `data`:
 * reveal → the plaintext; mask → the evaluated mask, or no `data` when the token has no mask;
 * redact → no `data`. Plaintext is only opened (the `open` callback) when reveal or mask needs it.
 */
import { shownActorId } from '../access/actor-ids.ts';
import type { Principal } from '../access/principal.ts';
import type { Transform } from '../access/rules.ts';
import { VaultError } from '../errors/catalogue.ts';
import { evaluateMask } from '../expressions/index.ts';
import type { TokenView } from './contract.ts';
import { formatExpiry } from './expiry.ts';
import { privacyOf } from './privacy.ts';
import type { TokenRow } from './token-store.ts';
import type { MaskTemplate } from './token-types.ts';

function corrupt(what: string): VaultError {
  return new VaultError('VAULT_CORRUPT', `A stored token has a malformed ${what}.`);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw corrupt(what);
  }
}

export function maskOf(row: Pick<TokenRow, 'mask'>): MaskTemplate {
  return row.mask === null ? null : (parseJson(row.mask, 'mask') as MaskTemplate);
}

export function metadataOf(row: Pick<TokenRow, 'metadata'>): Record<string, string> {
  const parsed = parseJson(row.metadata, 'metadata');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw corrupt('metadata');
  return parsed as Record<string, string>;
}

export function searchIndexesOf(row: Pick<TokenRow, 'search_indexes'>): string[] {
  const parsed = parseJson(row.search_indexes, 'search index list');
  if (!Array.isArray(parsed) || !parsed.every((e): e is string => typeof e === 'string')) {
    throw corrupt('search index list');
  }
  return parsed;
}

/** `data` as shown: absent (`undefined`) or a value (which may be null, e.g. a mask of a missing field). */
export type Shown = { readonly value: unknown } | undefined;

/** What `transform` shows of the data; `open` decrypts and is only called when needed. */
export async function shownData(
  transform: Transform,
  row: TokenRow,
  open: () => Promise<unknown>,
): Promise<Shown> {
  return needsData(transform, row) ? shownOf(transform, row, await open()) : undefined;
}

/** Whether `transform` shows anything of the data (so it must be opened). */
export function needsData(transform: Transform, row: TokenRow): boolean {
  return transform === 'reveal' || (transform === 'mask' && maskOf(row) !== null);
}

/** What `transform` shows of `data`, the opened plaintext, where `needsData` holds. */
export function shownOf(transform: Transform, row: TokenRow, data: unknown): Shown {
  if (transform === 'reveal') return { value: data };
  return { value: evaluateMask(maskOf(row), data) };
}

/** Every field of the token as `viewer` sees it; `data` only when shown, actor ids as shownActorId allows. */
export function viewOf(row: TokenRow, shown: Shown, viewer: Principal): TokenView {
  const mask = maskOf(row);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    type: row.type,
    ...(shown === undefined ? {} : { data: shown.value }),
    ...(mask === null ? {} : { mask }),
    ...(row.fingerprint === null ? {} : { fingerprint: row.fingerprint }),
    fingerprint_expression: row.fingerprint_expression,
    containers: [row.container],
    privacy: privacyOf(row.container),
    metadata: metadataOf(row),
    search_indexes: searchIndexesOf(row),
    created_by: shownActorId(viewer, row.created_by),
    created_at: row.created_at,
    modified_by: shownActorId(viewer, row.modified_by),
    modified_at: row.modified_at,
    expires_at: row.expires_at === null ? null : formatExpiry(row.expires_at, row.expires_offset),
  };
}

/**
 * A duplicate of a create the caller may not read: exactly what identifies it,
 * `id`, `type`, `tenant_id`, `fingerprint` and `containers`.
 */
export function redactedDuplicateView(row: TokenRow): TokenView {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    type: row.type,
    ...(row.fingerprint === null ? {} : { fingerprint: row.fingerprint }),
    containers: [row.container],
  };
}

/**
 * A duplicate of an update the caller may not read: the token without `data`,
 * `metadata`, `fingerprint_expression`, `search_indexes` and `mask`.
 */
export function redactedUpdateDuplicateView(row: TokenRow, viewer: Principal): TokenView {
  const {
    data: _data,
    metadata: _metadata,
    fingerprint_expression: _expression,
    search_indexes: _indexes,
    mask: _mask,
    ...rest
  } = viewOf(row, undefined, viewer);
  return rest;
}

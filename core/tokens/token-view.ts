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
  const mask = maskOf(row);
  return needsData(transform, row, mask) ? shownOf(transform, row, await open(), mask) : undefined;
}

/**
 * Whether `transform` shows anything of the data (so it must be opened). `mask`: the row's mask
 * (`maskOf`), when the caller has it already.
 */
export function needsData(transform: Transform, row: TokenRow, mask: MaskTemplate = maskOf(row)): boolean {
  return transform === 'reveal' || (transform === 'mask' && mask !== null);
}

/** What `transform` shows of `data`, the opened plaintext, where `needsData` holds. */
export function shownOf(
  transform: Transform,
  row: TokenRow,
  data: unknown,
  mask: MaskTemplate = maskOf(row),
): Shown {
  if (transform === 'reveal') return { value: data };
  return { value: evaluateMask(mask, data) };
}

/**
 * Every field of the token as `viewer` sees it; `data` only when shown, actor ids as shownActorId
 * allows. `mask`: the row's mask (`maskOf`), when the caller has it already.
 */
export function viewOf(
  row: TokenRow,
  shown: Shown,
  viewer: Principal,
  mask: MaskTemplate = maskOf(row),
): TokenView {
  // Member by member in the order the API shows them (no spread copies); absent ones left out.
  const view = { id: row.id, tenant_id: row.tenant_id, type: row.type } as {
    -readonly [K in keyof TokenView]: TokenView[K];
  };
  if (shown !== undefined) view.data = shown.value;
  if (mask !== null) view.mask = mask;
  if (row.fingerprint !== null) view.fingerprint = row.fingerprint;
  view.fingerprint_expression = row.fingerprint_expression;
  view.containers = [row.container];
  view.privacy = privacyOf(row.container);
  view.metadata = metadataOf(row);
  view.search_indexes = searchIndexesOf(row);
  view.created_by = shownActorId(viewer, row.created_by);
  view.created_at = row.created_at;
  view.modified_by = shownActorId(viewer, row.modified_by);
  view.modified_at = row.modified_at;
  view.expires_at = row.expires_at === null ? null : formatExpiry(row.expires_at, row.expires_offset);
  return view;
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

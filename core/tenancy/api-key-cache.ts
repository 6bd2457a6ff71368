/**
 * The API-key check of every application request: the keyed hash of the key looked up in
 * `applications`, with a compiled statement and, on a vault whose writes this process all sees
 * (the embedded vault), an in-memory map from keyed hash to the application's principal.
 *
 * Rules of the map (core/backends/embedded/table-changes.ts):
 * - An entry is served only while neither `applications` nor `tenants` (whose delete cascades to
 *   its applications) was written since it was read: a regenerated, deleted or re-granted key, or a
 *   deleted tenant, is refused or re-read by the very next request, committed or not.
 * - Expiry is checked on every request against the clock, exactly as on a fresh read.
 * - Unknown keys are never kept (a flood of made-up keys cannot fill it); it holds no API key,
 *   only its keyed hash, and is cleared when full.
 * - PostgreSQL (other servers write the same database): no map, every request reads the row.
 * - Every row read is verified against its MAC before it becomes a principal (and is cached).
 */
import type { Principal } from '../access/principal.ts';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { verifyRow } from '../integrity/row-authenticator.ts';
import { compileOnce, runCompiled } from '../storage/compiled-queries.ts';
import { TableCache } from '../backends/embedded/table-changes.ts';
import { isExpired } from '../tokens/expiry.ts';
import { deepFreeze } from '../validation/deep-freeze.ts';
import type { VaultHandle } from '../vault/types.ts';
import { applicationOf, applicationPrincipal } from './application-store.ts';
import type { ApplicationRow } from './application-store.ts';

/** Applications whose principal is kept per vault before the map is cleared. */
export const MAX_CACHED_API_KEYS = 10_000;

/** The tables an application's principal is read from (a tenant's delete cascades to them). */
const PRINCIPAL_TABLES = ['applications', 'tenants'] as const;

interface Known {
  readonly expiresAt: string | null;
  readonly principal: Principal;
}

const perVault = new WeakMap<object, TableCache<Known>>();

function cacheOf(vault: VaultHandle): TableCache<Known> | null {
  const changes = vault.changes;
  if (changes === null) return null;
  let cache = perVault.get(vault);
  if (cache === undefined) {
    cache = new TableCache<Known>(changes, PRINCIPAL_TABLES, MAX_CACHED_API_KEYS);
    perVault.set(vault, cache);
  }
  return cache;
}

function principalOf(row: ApplicationRow): Principal {
  // Shared by every request with this key until the row changes: nothing may modify it.
  return deepFreeze<Principal>(applicationPrincipal(applicationOf(row)));
}

/** The principal of the application whose key hashes to `hash`, or null. */
export async function principalForKeyHash(vault: VaultHandle, hash: Uint8Array): Promise<Principal | null> {
  const cache = cacheOf(vault);
  const id = Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('base64');
  let known = cache?.get(id);
  if (known === undefined) {
    const version = cache?.version() ?? 0;
    const query = compileOnce(vault.db, 'applications:by-key-hash', 1, () =>
      vault.db.selectFrom('applications').selectAll().where('key_hash', '=', new Uint8Array(0)),
    );
    const row = (await runCompiled(vault.db, query, [hash])).rows[0];
    if (!row || !constantTimeEqual(row.key_hash, hash)) return null;
    // Its type, grants, tenant and expiry are what the key may do: a row changed outside the vault
    // is refused (INTEGRITY_FAILED), never turned into a principal. A cached principal was verified
    // when it was read.
    verifyRow(vault, 'applications', row);
    known = { expiresAt: row.expires_at, principal: principalOf(row) };
    cache?.set(id, version, known);
  }
  // An expired key is refused at once; the sweep removes its row later.
  if (known.expiresAt !== null && isExpired(known.expiresAt, vault.clock.now())) return null;
  return known.principal;
}

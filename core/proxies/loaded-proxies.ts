/**
 * The proxy a `/proxy` request names by its key, kept opened in memory so that a request does not
 * read, open and parse the proxy again.
 *
 * Rules:
 * - Entries are kept by proxy key in a bounded least-recently-used map; unknown keys are never
 *   kept, so a flood of made-up keys cannot fill it.
 * - Embedded vault (this process sees every write, core/backends/embedded/table-changes.ts): an entry is
 *   served while none of LOADED_PROXY_TABLES was written since it was read: an update, a delete,
 *   a new key, a changed application or a deleted tenant is seen by the very next request,
 *   committed or not. No query runs on a hit.
 * - PostgreSQL (other servers write the same rows): the row is read on every request, and the
 *   entry is served only when the row read equals the row it was opened from, column by column
 *   (the sealed fields included, which are sealed anew on every change): the version check.
 *   Only the opening of sealed fields and the parsing are saved there; the application of a
 *   keyless proxy is read on every request.
 * - Sealed fields (configuration, transform code) are opened only for a proxy that has a
 *   transform, as before; what is kept is shared by requests and frozen.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { LruCache } from '../expressions/lru.ts';
import type { Database } from '../storage/schema.ts';
import { applicationOf, applicationPrincipal, findApplicationRow } from '../tenancy/application-store.ts';
import { deepFreeze } from '../validation/deep-freeze.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Proxy } from './contract.ts';
import { SEALED_PROXY_FIELDS } from './proxy-secrets.ts';
import type { ProxySecrets } from './proxy-secrets.ts';
import { findProxyByKey, openProxyRow, proxyOf } from './proxy-store.ts';
import type { ProxyRow } from './proxy-store.ts';

/** Proxies kept opened per vault. */
export const MAX_LOADED_PROXIES = 1000;

/**
 * What a loaded proxy is read from: its row, the application whose grants a keyless proxy uses,
 * the tenant keys that open its sealed fields, and tenants (whose delete cascades to them all).
 */
const LOADED_PROXY_TABLES = ['proxies', 'applications', 'tenant_keys', 'tenants'] as const;

export interface LoadedProxy {
  readonly proxy: Proxy;
  /**
   * For a proxy that requires no API key: the principal of its application (null when it has
   * none, or the application is gone). Undefined for a proxy that requires a key.
   */
  readonly keyless?: Principal | null;
}

interface Entry {
  readonly loaded: LoadedProxy;
  /** Embedded vault: the tables' version before the read. */
  readonly version: number;
  /** PostgreSQL: the row the entry was opened from. */
  readonly row: ProxyRow;
}

/** The principal of a proxy's application (null when none, or when it was deleted). */
export async function proxyApplication(
  db: Kysely<Database>,
  keys: RowKeys,
  applicationId: string | null,
  tenantId: string,
): Promise<Principal | null> {
  if (applicationId === null) return null;
  const row = await findApplicationRow(db, keys, applicationId);
  if (!row || row.tenant_id !== tenantId) return null;
  return applicationPrincipal(applicationOf(row));
}

function sameRow(a: ProxyRow, b: ProxyRow): boolean {
  for (const column of Object.keys(a) as Array<keyof ProxyRow>) if (a[column] !== b[column]) return false;
  return Object.keys(a).length === Object.keys(b).length;
}

export class LoadedProxies {
  private readonly entries = new LruCache<string, Entry>(MAX_LOADED_PROXIES);

  constructor(
    private readonly vault: Pick<VaultHandle, 'db' | 'changes'> & RowKeys,
    private readonly secrets: ProxySecrets,
  ) {}

  /**
   * The proxy with this key, opened; undefined when no proxy has it. `admit` is called once the
   * proxy is found and before anything is opened or read for it (the rate limit of keyless
   * proxies counts there); it may throw.
   */
  async byKey(
    key: string,
    admit: (found: { readonly id: string; readonly requireAuth: boolean }) => void,
  ): Promise<LoadedProxy | undefined> {
    const { db, changes } = this.vault;
    const version = changes?.version(LOADED_PROXY_TABLES) ?? 0;
    const kept = this.entries.get(key);
    if (kept !== undefined && changes !== null && kept.version === version) {
      admit({ id: kept.loaded.proxy.id, requireAuth: kept.loaded.proxy.require_auth });
      return kept.loaded;
    }
    const row = await findProxyByKey(db, this.vault, key);
    if (row === undefined) {
      this.entries.delete(key);
      return undefined;
    }
    admit({ id: row.id, requireAuth: row.require_auth !== 0 });
    if (kept !== undefined && changes === null && sameRow(kept.row, row)) {
      // The row did not change; a keyless proxy's application still may have.
      if (kept.loaded.keyless === undefined) return kept.loaded;
      const keyless = await proxyApplication(db, this.vault, kept.loaded.proxy.application_id, row.tenant_id);
      return { proxy: kept.loaded.proxy, keyless };
    }
    // Configuration and transform code are opened only when a transform will use them.
    const hasTransform = row.request_transform !== null || row.response_transform !== null;
    const proxy = proxyOf(await openProxyRow(db, this.secrets, row, hasTransform ? SEALED_PROXY_FIELDS : []));
    const loaded: LoadedProxy = deepFreeze(
      proxy.require_auth
        ? { proxy }
        : { proxy, keyless: await proxyApplication(db, this.vault, proxy.application_id, proxy.tenant_id) },
    );
    // Kept only when nothing it was read from changed meanwhile (embedded: a write between the
    // version and the reads; PostgreSQL compares the row on the next request).
    if (changes === null || changes.version(LOADED_PROXY_TABLES) === version) {
      this.entries.set(key, { loaded, version, row });
    }
    return loaded;
  }
}

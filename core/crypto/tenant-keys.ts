import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { compileOnce, runCompiled } from '../storage/compiled-queries.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { KEY_BYTES } from './aead.ts';

/** Each tenant has separate keys per job, so one leaking does not expose the others' work. */
export type TenantKeyPurpose = 'data' | 'fingerprint' | 'search';

export interface TenantKey {
  readonly term: number;
  readonly key: Uint8Array;
}

/** The term needs no place in the AAD: each term has its own wrapping key. */
function aad(tenantId: string, purpose: TenantKeyPurpose): Uint8Array {
  return Buffer.from(`svc-tenant-key:v1:${tenantId}:${purpose}`, 'utf8');
}

/**
 * Per-tenant keys, stored in `tenant_keys` wrapped by the keyring, unwrapped on first use and kept
 * in memory. The cache is keyed by the wrapped bytes (their random nonce), not only by tenant and
 * term: a key created in a transaction that rolled back can then never be mistaken for the key a
 * later transaction creates, so nothing is ever sealed with a key the database does not hold.
 */
export class TenantKeys {
  private readonly cache = new Map<string, TenantKey>();
  /** The key last unwrapped per `tenant:purpose:term`, for `recent`. */
  private readonly latest = new Map<string, TenantKey>();

  constructor(
    private readonly vault: Pick<VaultHandle, 'wrapSecret' | 'unwrapSecret' | 'clock' | 'keyTerm'>,
  ) {}

  /**
   * The key of `purpose` under the vault's active term; created (in `trx`) when the tenant has none
   * under that term yet. After a key rotation a tenant gets a fresh data key, so data sealed from
   * then on cannot be opened with the old key material; its fingerprint and search keys are the
   * same keys re-wrapped under the new term, so fingerprints and blind indexes stay comparable.
   */
  async current(trx: Kysely<Database>, tenantId: string, purpose: TenantKeyPurpose): Promise<TenantKey> {
    // Compiled once: every write of tokens asks for one or two keys.
    const newest = compileOnce(trx, 'tenant_keys:newest', 3, () =>
      trx
        .selectFrom('tenant_keys')
        .select(['term', 'wrapped'])
        .where('tenant_id', '=', '')
        .where('purpose', '=', '')
        .orderBy('term', 'desc')
        .limit(1),
    );
    const row = (await runCompiled(trx, newest, [tenantId, purpose, 1])).rows[0];
    if (row && row.term === this.vault.keyTerm)
      return this.unwrapCached(tenantId, purpose, row.term, row.wrapped);
    const key =
      row && purpose !== 'data'
        ? this.unwrapCached(tenantId, purpose, row.term, row.wrapped).key
        : new Uint8Array(randomBytes(KEY_BYTES));
    // The wrapping term becomes the tenant key's term: one number names both.
    const { term, sealed } = this.vault.wrapSecret(key, aad(tenantId, purpose));
    await trx
      .insertInto('tenant_keys')
      .values({
        tenant_id: tenantId,
        purpose,
        term,
        wrapped: sealed,
        created_at: this.vault.clock.now().toISOString(),
      })
      .execute();
    return { term, key };
  }

  /** The key of a given term, to open data sealed under it. */
  async forTerm(
    db: Kysely<Database>,
    tenantId: string,
    purpose: TenantKeyPurpose,
    term: number,
  ): Promise<TenantKey> {
    const row = await db
      .selectFrom('tenant_keys')
      .select(['term', 'wrapped'])
      .where('tenant_id', '=', tenantId)
      .where('purpose', '=', purpose)
      .where('term', '=', term)
      .executeTakeFirstOrThrow();
    return this.unwrapCached(tenantId, purpose, row.term, row.wrapped);
  }

  /**
   * The key of `tenant, purpose, term` last unwrapped here, without a query; undefined when none
   * was. It may come from a transaction that rolled back, so a caller must treat a failure to open
   * with it as a miss and ask `forTerm`, which reads the stored key.
   */
  recent(tenantId: string, purpose: TenantKeyPurpose, term: number): TenantKey | undefined {
    return this.latest.get(`${tenantId}:${purpose}:${term}`);
  }

  /**
   * Moves every tenant's fingerprint and search keys under the active term and deletes the wrapped
   * keys of older terms. Call after every envelope was resealed under the active term (nothing may
   * still need an old data key).
   */
  async adoptActiveTerm(trx: Kysely<Database>): Promise<void> {
    const active = this.vault.keyTerm;
    const holders = await trx
      .selectFrom('tenant_keys')
      .select(['tenant_id', 'purpose'])
      .where('term', '<>', active)
      .where('purpose', '<>', 'data')
      .distinct()
      .execute();
    for (const h of holders) await this.current(trx, h.tenant_id, h.purpose as TenantKeyPurpose);
    await trx.deleteFrom('tenant_keys').where('term', '<>', active).execute();
    this.cache.clear();
    this.latest.clear();
  }

  private unwrapCached(
    tenantId: string,
    purpose: TenantKeyPurpose,
    term: number,
    wrapped: Uint8Array,
  ): TenantKey {
    const cacheKey = `${tenantId}:${purpose}:${term}:${Buffer.from(wrapped.subarray(0, 24)).toString('hex')}`;
    const cached = this.cache.get(cacheKey);
    if (cached) {
      this.latest.set(`${tenantId}:${purpose}:${term}`, cached);
      return cached;
    }
    const key = { term, key: this.vault.unwrapSecret(term, wrapped, aad(tenantId, purpose)) };
    this.cache.set(cacheKey, key);
    this.latest.set(`${tenantId}:${purpose}:${term}`, key);
    return key;
  }
}

import { SqlAuditStore } from '../../audit/sql-audit-store.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import type { DatabaseConnection } from 'kysely';
import type { Pool } from 'pg';
import { VaultError } from '../../errors/catalogue.ts';
import { Keyring } from '../../crypto/keyring.ts';
import { deriveRootKey, newKdfHeader } from '../../crypto/root-key.ts';
import type { KdfHeader, KdfLimits, KeySource } from '../../crypto/root-key.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import { RoutedPostgresDialect, readOnlyOutsideTransactions, runRaw } from './driver.ts';
import type { PostgresTransactionState } from './driver.ts';
import { explainPostgresError, isRetryable } from './errors.ts';
import { migratePostgres, postgresMigrations } from './migrations.ts';
import type { PostgresMigrationContext } from './migrations.ts';
import { redactedDatabaseUrl } from './database-url.ts';
import { createPostgresPool } from './pool.ts';
import type { PostgresPoolLimits } from './pool.ts';
import type { VaultHeadroom } from '../../storage/headroom.ts';
import type { Database } from '../../storage/schema.ts';
import { countRowMacsOutsideTerm } from '../../integrity/stored-row-macs.ts';
import { Barrier, assertOnlyActiveTermInUse } from '../../vault/barrier.ts';
import { BarrierBackedVault } from '../../vault/barrier-vault.ts';
import { systemClock } from '../../vault/clock.ts';
import type { Clock } from '../../vault/clock.ts';
import {
  hasKeyringRow,
  insertKeyringRow,
  keyringRow,
  lockedKeyringRow,
  readKeyringRow,
  storedKeyring,
  updateKeyringRow,
} from './postgres-keyring.ts';
import { openPostgresVaultHeadroom, openPostgresVaultStatus } from './postgres-status.ts';
import type { VaultStatus } from '../../vault/status-schema.ts';
import type { AdoptedIdentity, VaultHandle } from '../../vault/types.ts';

export interface PostgresVaultOptions {
  /** `postgres://user@host:port/database?sslmode=…` */
  readonly url: string;
  readonly key: KeySource;
  readonly clock?: Clock;
  readonly pool?: Partial<PostgresPoolLimits>;
  /**
   * An open pool of `url`'s database to run on instead of one made from `pool`'s limits; `close()`
   * leaves it open for its owner. For a caller that opens vault after vault of one database (the
   * test fixtures): a new PostgreSQL session costs the server ≈ 26 ms of CPU.
   */
  readonly connections?: Pool;
}

export interface CreatePostgresVaultOptions extends PostgresVaultOptions {
  readonly kdf?: KdfLimits;
}

export type { AdoptedIdentity } from '../../vault/types.ts';

/** Serialization failures and deadlocks are retried this many times before the error stands. */
const MAX_ATTEMPTS = 8;
/** Advisory lock key held while migrating: servers starting together migrate one at a time. */
const MIGRATION_LOCK = 0x73766331; // "svc1"

/**
 * A vault on PostgreSQL: the rows live in the database, the keyring (wrapped by the root key) in
 * `vault_keyring`, and the barrier in this process's memory. Several processes may hold one
 * database at once: each write runs in a READ COMMITTED transaction on its own pooled connection,
 * and every read-then-write that must not interleave takes a row lock or leans on a constraint
 * (docs/postgres.md). Serialization failures and deadlocks are retried.
 */
export class PostgresVault extends BarrierBackedVault implements VaultHandle {
  readonly backend = 'postgres';
  readonly db: Kysely<Database>;
  readonly path: string;
  readonly id: string;
  readonly clock: Clock;
  /** Other servers write the same database: rows are never cached in memory. */
  readonly changes = null;
  /** The audit log stays in its table: the database, not this process's memory, holds it. */
  readonly audit: SqlAuditStore;
  private readonly tx = new AsyncLocalStorage<PostgresTransactionState>();
  private readonly dialect: RoutedPostgresDialect;
  private commits = 0;
  private closed = false;

  private constructor(
    private readonly sodium: Sodium,
    pool: Pool,
    ownsPool: boolean,
    url: string,
    private stored: { vaultId: string; createdAt: string; kdf: KdfHeader },
    keyring: Keyring,
    clock: Clock,
  ) {
    super(new Barrier(sodium, keyring));
    this.path = redactedDatabaseUrl(url);
    this.id = stored.vaultId;
    this.clock = clock;
    this.dialect = new RoutedPostgresDialect(pool, ownsPool, this.tx);
    this.db = new Kysely<Database>({
      dialect: this.dialect,
      plugins: [readOnlyOutsideTransactions(this.tx)],
    });
    this.audit = new SqlAuditStore(this.db, this);
  }

  /** Sets up an empty database: schema (under the migration lock) and a fresh keyring. */
  static async create(options: CreatePostgresVaultOptions): Promise<PostgresVault> {
    const sodium = await loadSodium();
    const clock = options.clock ?? systemClock;
    return PostgresVault.setUp(sodium, options, {
      vaultId: randomUUID(),
      createdAt: clock.now().toISOString(),
      kdf: newKdfHeader(sodium, options.key, options.kdf),
      keyring: Keyring.create(sodium, clock.now()),
    });
  }

  /**
   * Sets up an empty database holding an existing vault's identity and keyring (a copy from the
   * embedded file): `fill` writes its rows in the same transaction as the schema and the keyring, so
   * a failed copy leaves the database as empty as it was. The key must derive the same root key
   * under `kdf` (the source's), so the same key opens both.
   */
  static async adopt(
    options: PostgresVaultOptions & { readonly identity: AdoptedIdentity },
    fill: (trx: Kysely<Database>) => Promise<void>,
  ): Promise<PostgresVault> {
    return PostgresVault.setUp(await loadSodium(), options, options.identity, fill);
  }

  private static async setUp(
    sodium: Sodium,
    options: PostgresVaultOptions,
    identity: AdoptedIdentity,
    fill?: (trx: Kysely<Database>) => Promise<void>,
  ): Promise<PostgresVault> {
    const clock = options.clock ?? systemClock;
    const pool = options.connections ?? createPostgresPool(options.url, options.pool);
    const ownsPool = options.connections === undefined;
    try {
      const { vaultId, createdAt, kdf } = identity;
      // The rows it is filled with carry MACs (a vault file migrates them before it is copied).
      const keyring = identity.keyring.withRowMacs();
      const wrapped = Barrier.wrapKeyring(
        sodium,
        keyring,
        deriveRootKey(sodium, options.key, kdf),
        vaultId,
        kdf,
      );
      const vault = new PostgresVault(
        sodium,
        pool,
        ownsPool,
        options.url,
        { vaultId, createdAt, kdf },
        keyring,
        clock,
      );
      await vault.transaction(async (trx) => {
        // No keyring is stored yet; the one stored below records the row MACs.
        await vault.migrateHeld(trx, { keys: vault, rowMacsRecorded: false, recordRowMacs: async () => {} });
        if (await hasKeyringRow(trx)) {
          throw new VaultError(
            'VAULT_EXISTS',
            `A vault already exists in ${redactedDatabaseUrl(options.url)}; it was left as it is.`,
          );
        }
        await insertKeyringRow(
          trx,
          {
            vault_id: vaultId,
            created_at: createdAt,
            kdf: JSON.stringify(kdf),
            wrapped,
            terms: JSON.stringify(keyring.terms),
          },
          clock.now().toISOString(),
        );
        await fill?.(trx);
      });
      return vault;
    } catch (err) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Opens a vault set up by `create`: the root key is checked against the stored keyring before
   * anything is written (a wrong key changes nothing), then pending migrations run under the lock.
   */
  static async open(options: PostgresVaultOptions): Promise<PostgresVault> {
    const sodium = await loadSodium();
    const clock = options.clock ?? systemClock;
    const pool = options.connections ?? createPostgresPool(options.url, options.pool);
    const ownsPool = options.connections === undefined;
    try {
      const row = await readKeyringRow(pool);
      if (!row) {
        throw new VaultError(
          'VAULT_NOT_FOUND',
          `No vault in ${redactedDatabaseUrl(options.url)}: run svc init --database first.`,
        );
      }
      const stored = storedKeyring(row);
      // Derived once: a migration that records something in the keyring re-wraps it with it.
      const rootKey = deriveRootKey(sodium, options.key, stored.kdf);
      const keyring = Barrier.unlockWithRootKey(sodium, stored, rootKey);
      const vault = new PostgresVault(
        sodium,
        pool,
        ownsPool,
        options.url,
        { vaultId: row.vault_id, createdAt: row.created_at, kdf: stored.kdf },
        keyring,
        clock,
      );
      await vault.transaction((trx) =>
        vault.migrateHeld(trx, {
          keys: vault,
          rowMacsRecorded: keyring.rowMacs,
          recordRowMacs: (inner) => vault.recordRowMacs(inner, rootKey),
        }),
      );
      return vault;
    } catch (err) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw explainPostgresError(err);
    }
  }

  /** Base DDL and pending migrations, under a transaction-scoped advisory lock. */
  private async migrateHeld(trx: Kysely<Database>, context: PostgresMigrationContext): Promise<void> {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await migratePostgres(trx, this.clock.now().toISOString(), context);
  }

  /**
   * Records in the stored keyring that the rows carry MACs: the keyring row, locked, opened again
   * with `rootKey` (VAULT_WRONG_KEY if a rekey changed it meanwhile) and re-wrapped with the flag.
   */
  private async recordRowMacs(trx: Kysely<Database>, rootKey: Uint8Array): Promise<void> {
    const stored = storedKeyring(await lockedKeyringRow(trx));
    const next = Barrier.unlockWithRootKey(this.sodium, stored, rootKey).withRowMacs();
    await updateKeyringRow(
      trx,
      { wrapped: Barrier.wrapKeyring(this.sodium, next, rootKey, stored.vaultId, stored.kdf) },
      this.clock.now().toISOString(),
    );
  }

  inTransaction(): boolean {
    return this.tx.getStore()?.active === true;
  }

  async transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    const outer = this.tx.getStore();
    if (outer?.active) return fn(this.db);
    for (let attempt = 1; ; attempt++) {
      this.assertUsable();
      const connection = await this.dialect.driver.acquireRaw();
      const state: PostgresTransactionState = { connection, active: true };
      try {
        await runRaw(connection, 'begin isolation level read committed');
        const result = await this.tx.run(state, () => fn(this.db));
        state.active = false;
        await runRaw(connection, 'commit');
        this.commits++;
        return result;
      } catch (err) {
        state.active = false;
        await rollback(connection);
        if (attempt < MAX_ATTEMPTS && isRetryable(err)) {
          // Jitter, so writers that collided do not collide again in lockstep.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
          continue;
        }
        throw explainPostgresError(err);
      } finally {
        await this.dialect.driver.releaseRaw(connection).catch(() => undefined);
      }
    }
  }

  read<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  async lockFor(name: string): Promise<void> {
    if (!this.tx.getStore()?.active) {
      throw new VaultError('INTERNAL', 'A named lock is taken inside vault.transaction().');
    }
    await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(this.db);
  }

  /**
   * The vault's identity for a copy to another backend: the stored keyring, unlocked with `key`
   * (VAULT_WRONG_KEY unless it opens it), with the id, creation time and KDF it is bound to.
   */
  async identity(key: KeySource): Promise<AdoptedIdentity> {
    this.assertUsable();
    const row = await keyringRow(this.db);
    const stored = storedKeyring(row);
    return {
      vaultId: stored.vaultId,
      createdAt: row.created_at,
      kdf: stored.kdf,
      keyring: Barrier.unlockKeyring(this.sodium, stored, key),
    };
  }

  /** PostgreSQL compacts by itself (autovacuum); nothing to do. */
  async compact(): Promise<void> {
    this.assertUsable();
  }

  async status(): Promise<VaultStatus> {
    this.assertUsable();
    return openPostgresVaultStatus(this.db, this.path, this.stored, this.barrier.keyTerms);
  }

  async headroom(): Promise<VaultHeadroom> {
    this.assertUsable();
    return openPostgresVaultHeadroom(this.db);
  }

  /** Commits made through this process (the database has no single journal to count). */
  get sequence(): number {
    return this.commits;
  }

  /** Unreachable databases are answered per request (503); the handle itself never fails for good. */
  get failure(): Error | null {
    return null;
  }

  /** Several servers share the database: there is no single holder to record. */
  async setLockUrl(): Promise<void> {
    this.assertUsable();
  }

  async addKeyTerm(key: KeySource): Promise<number> {
    const next = await this.replaceKeyring(key, async (current) => current.withNewTerm(this.clock.now()));
    return next.activeTerm;
  }

  async retireOldKeyTerms(key: KeySource): Promise<number[]> {
    const before = this.barrier.keyTerms;
    const next = await this.replaceKeyring(key, async (current, trx) => {
      const active = current.activeTerm;
      const keys = await trx
        .selectFrom('tenant_keys')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('term', '<>', active)
        .executeTakeFirstOrThrow();
      const envelopes = await trx
        .selectFrom('tokens')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('data', 'not like', `v1.${active}.%`)
        .executeTakeFirstOrThrow();
      assertOnlyActiveTermInUse(
        Number(keys.n),
        Number(envelopes.n),
        await countRowMacsOutsideTerm(trx, active),
      );
      return current.withOnlyActiveTerm();
    });
    return before.filter((t) => !next.terms.includes(t));
  }

  /**
   * Re-wraps `change(current)` with the root key and stores it, holding the keyring row's lock so
   * two processes never rotate at once. The key must open the stored keyring first.
   */
  private async replaceKeyring(
    key: KeySource,
    change: (current: Keyring, trx: Kysely<Database>) => Promise<Keyring>,
  ): Promise<Keyring> {
    let undo: (() => void) | undefined;
    try {
      return await this.transaction(async (trx) => {
        undo?.();
        undo = undefined;
        const row = await lockedKeyringRow(trx);
        const stored = storedKeyring(row);
        const rootKey = deriveRootKey(this.sodium, key, stored.kdf);
        const current = Barrier.unlockWithRootKey(this.sodium, stored, rootKey);
        const next = await change(current, trx);
        await updateKeyringRow(
          trx,
          {
            wrapped: Barrier.wrapKeyring(this.sodium, next, rootKey, stored.vaultId, stored.kdf),
            terms: JSON.stringify(next.terms),
          },
          this.clock.now().toISOString(),
        );
        undo = this.barrier.adopt(next);
        return next;
      });
    } catch (err) {
      undo?.();
      throw err;
    }
  }

  /**
   * Changes the root key: the keyring row is re-wrapped under `newKey` (with a fresh KDF header) in
   * one transaction holding the row's lock, after `key` has opened it (VAULT_WRONG_KEY otherwise,
   * nothing changed). The keyring itself, every data key, stays the same: servers running on the
   * database keep serving with the keyring they unwrapped at start; what needs the root key later
   * (their next start, a key rotation) needs the new one, and the old one is refused there with
   * VAULT_WRONG_KEY. The row lock orders a rekey and a rotation: whichever commits second sees
   * the first's keyring.
   */
  async rekey(key: KeySource, newKey: KeySource, kdf?: KdfLimits): Promise<void> {
    this.assertUsable();
    // The new root key is derived before the transaction. The current one is checked against the
    // locked row's KDF header, so it is derived under the lock, which only rotation and rekey take.
    const newKdf = newKdfHeader(this.sodium, newKey, kdf);
    const newRootKey = deriveRootKey(this.sodium, newKey, newKdf);
    await this.transaction(async (trx) => {
      const row = await lockedKeyringRow(trx);
      const stored = storedKeyring(row);
      const keyring = Barrier.unlockKeyring(this.sodium, stored, key);
      await updateKeyringRow(
        trx,
        {
          kdf: JSON.stringify(newKdf),
          wrapped: Barrier.wrapKeyring(this.sodium, keyring, newRootKey, stored.vaultId, newKdf),
          terms: JSON.stringify(keyring.terms),
        },
        this.clock.now().toISOString(),
      );
    });
    this.stored = { ...this.stored, kdf: newKdf };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.barrier.seal();
    try {
      await this.db.destroy();
    } finally {
      // As EmbeddedVault's: an enabled AsyncLocalStorage costs every later await in the process,
      // so it is disabled even when the pool fails to end.
      this.tx.disable();
    }
  }

  private assertUsable(): void {
    if (this.closed) throw new VaultError('VAULT_CLOSED', 'The vault is closed.');
  }
}

async function rollback(connection: DatabaseConnection): Promise<void> {
  try {
    await runRaw(connection, 'rollback');
  } catch {
    // The connection is gone or the transaction already ended: nothing was committed.
  }
}

/** `svc vault rekey` on a database: opens it with `key`, re-wraps the keyring under `newKey`. */
export async function rekeyPostgresVault(options: {
  readonly url: string;
  readonly key: KeySource;
  readonly newKey: KeySource;
  readonly kdf?: KdfLimits;
  readonly clock?: Clock;
}): Promise<void> {
  const vault = await PostgresVault.open({
    url: options.url,
    key: options.key,
    pool: { max: 1 },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  try {
    await vault.rekey(options.key, options.newKey, options.kdf);
  } finally {
    await vault.close();
  }
}

export const createPostgresVault = (options: CreatePostgresVaultOptions) => PostgresVault.create(options);
export const openPostgresVault = (options: PostgresVaultOptions) => PostgresVault.open(options);
export const POSTGRES_SCHEMA_VERSION = postgresMigrations.at(-1)?.version ?? 0;

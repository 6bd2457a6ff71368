import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely, sql } from 'kysely';
import type { Database as SqlJsDatabase } from 'sql.js';
import { VaultError } from '../errors/catalogue.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { LookupPurpose } from '../crypto/keyring.ts';
import type { Sodium } from '../crypto/sodium.ts';
import type { JournalWriter } from '../storage/journal.ts';
import type { JournaledStatement, SqlParam } from '../storage/journal-codec.ts';
import type { VaultLock } from '../storage/lock.ts';
import { SCHEMA_MIGRATIONS_DDL, migrations } from '../storage/migrations.ts';
import { Mutex } from '../storage/mutex.ts';
import { applyPragmas } from '../storage/pragmas.ts';
import type { VaultPaths } from '../storage/paths.ts';
import type { Database } from '../storage/schema.ts';
import { assertDatabaseHeadroom, assertDiskHeadroom, explainDiskFull } from '../storage/space-guard.ts';
import type { StorageLimits } from '../storage/space-guard.ts';
import type { StorageFs } from '../storage/storage-fs.ts';
import { SqlJsConnection, SqlJsDialect, assertDeterministic } from '../storage/sqljs-dialect.ts';
import { writeVaultFile } from '../storage/vault-file.ts';
import type { VaultHeader } from '../storage/vault-file.ts';
import { Barrier, assertOnlyActiveTermInUse } from './barrier.ts';
import { readVaultStatus } from './status.ts';
import type { Clock, KeySource, VaultHandle, VaultStatus } from './types.ts';

export const DEFAULT_SNAPSHOT_THRESHOLD = 64 * 1024 * 1024;

interface TransactionState {
  readonly statements: JournaledStatement[];
  active: boolean;
}

export interface EmbeddedVaultParts {
  readonly sodium: Sodium;
  readonly fs: StorageFs;
  readonly sqlite: SqlJsDatabase;
  readonly paths: VaultPaths;
  readonly header: VaultHeader;
  readonly keyring: Keyring;
  readonly journal: JournalWriter;
  readonly lock: VaultLock;
  readonly clock: Clock;
  readonly snapshotThresholdBytes: number;
  readonly limits: StorageLimits;
}

/**
 * A vault held open by this process: sql.js in memory, the journal on disk, the lock taken.
 * One mutex orders every access to the single sql.js connection; an AsyncLocalStorage marks the
 * code running inside a transaction so its queries use the connection the transaction holds.
 */
export class EmbeddedVault implements VaultHandle {
  readonly db: Kysely<Database>;
  readonly path: string;
  readonly id: string;
  readonly clock: Clock;
  private readonly mutex = new Mutex();
  private readonly tx = new AsyncLocalStorage<TransactionState>();
  private readonly connection: SqlJsConnection;
  private readonly heldReleases: Array<() => void> = [];
  private header: VaultHeader;
  /** Keys and encryption: the file layer asks it for the file key of a term. */
  private readonly barrier: Barrier;
  private closed = false;
  private background: Promise<void> | null = null;
  private backgroundError: unknown = null;

  constructor(private readonly parts: EmbeddedVaultParts) {
    this.path = parts.paths.vault;
    this.id = parts.header.vault_id;
    this.clock = parts.clock;
    this.header = parts.header;
    this.barrier = new Barrier(parts.sodium, parts.keyring);
    this.connection = new SqlJsConnection(parts.sqlite, (sql, params) => this.recordWrite(sql, params));
    this.db = new Kysely<Database>({
      dialect: new SqlJsDialect(
        () => this.acquireConnection(),
        () => this.releaseConnection(),
      ),
    });
  }

  async transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    const outer = this.tx.getStore();
    if (outer?.active) return fn(this.db); // nested: joins the transaction already running
    this.assertUsable();
    // Refused before anything runs, so a full disk never leaves a half-written journal behind.
    assertDiskHeadroom(await this.freeDiskBytes(), this.parts.limits, 'writes are refused');
    const release = await this.mutex.acquire();
    let durable: Promise<void>;
    let result: T;
    try {
      this.assertUsable();
      assertDatabaseHeadroom(this.databaseBytes(), this.parts.limits);
      const state: TransactionState = { statements: [], active: true };
      this.connection.exec('BEGIN');
      try {
        result = await this.tx.run(state, () => fn(this.db));
        this.connection.exec('COMMIT');
      } catch (err) {
        try {
          this.connection.exec('ROLLBACK');
        } catch {
          // sql.js already rolled back (e.g. a failed COMMIT); nothing more to undo.
        }
        throw err;
      } finally {
        state.active = false;
      }
      durable =
        state.statements.length > 0
          ? this.parts.journal.append(state.statements, this.clock.now().toISOString())
          : Promise.resolve();
    } finally {
      release();
    }
    await durable;
    this.maybeSnapshot();
    return result;
  }

  /** One writer runs at a time here: every named lock is already held by the transaction. */
  async lockFor(): Promise<void> {
    return;
  }

  async compact(): Promise<void> {
    this.assertUsable();
    await this.mutex.run(() => this.snapshotHeld());
  }

  async status(): Promise<VaultStatus> {
    return readVaultStatus(this.path);
  }

  async setLockUrl(url: string | undefined): Promise<void> {
    if (this.closed) throw new VaultError('VAULT_CLOSED', 'The vault is closed.');
    await this.parts.lock.setUrl(url);
  }

  hashApiKey(apiKey: string): Uint8Array {
    return this.barrier.hashApiKey(apiKey);
  }

  keyedHash(purpose: LookupPurpose, message: Uint8Array | string): Uint8Array {
    return this.barrier.keyedHash(purpose, message);
  }

  wrapSecret(plaintext: Uint8Array, aad: Uint8Array): { term: number; sealed: Uint8Array } {
    return this.barrier.wrapSecret(plaintext, aad);
  }

  unwrapSecret(term: number, sealed: Uint8Array, aad: Uint8Array): Uint8Array {
    return this.barrier.unwrapSecret(term, sealed, aad);
  }

  get keyTerm(): number {
    return this.barrier.keyTerm;
  }

  get keyTerms(): readonly number[] {
    return this.barrier.keyTerms;
  }

  async addKeyTerm(key: KeySource): Promise<number> {
    const next = await this.replaceKeyring(key, async (current) => current.withNewTerm(this.clock.now()));
    return next.activeTerm;
  }

  async retireOldKeyTerms(key: KeySource): Promise<number[]> {
    const before = this.barrier.keyTerms;
    const next = await this.replaceKeyring(key, async (current) => {
      await this.assertOnlyActiveTermInUse(current.activeTerm);
      return current.withOnlyActiveTerm();
    });
    return before.filter((t) => !next.terms.includes(t));
  }

  /** Wrapped tenant keys and token envelopes name their term; none may name a term being retired. */
  private async assertOnlyActiveTermInUse(active: number): Promise<void> {
    const count = (sql: string, params: (string | number)[]) =>
      Number(this.parts.sqlite.exec(sql, params)[0]?.values[0]?.[0] ?? 0);
    const keys = count('SELECT count(*) FROM tenant_keys WHERE term <> ?', [active]);
    const envelopes = count('SELECT count(*) FROM tokens WHERE data NOT LIKE ?', [`v1.${active}.%`]);
    assertOnlyActiveTermInUse(keys, envelopes);
  }

  /**
   * Swaps the keyring for `change(current)`, re-wrapped with the root key, and writes a snapshot
   * (under the new active term) carrying it. The root key must unwrap the current keyring, so a
   * wrong key never replaces it. On failure the old keyring stays in force.
   */
  private async replaceKeyring(
    key: KeySource,
    change: (current: Keyring) => Promise<Keyring>,
  ): Promise<Keyring> {
    this.assertUsable();
    return this.mutex.run(async () => {
      const { sodium } = this.parts;
      const { vault_id: vaultId, kdf } = this.header;
      const wrapped = new Uint8Array(Buffer.from(this.header.keyring, 'base64'));
      const rootKey = Barrier.checkedRootKey(sodium, { vaultId, kdf, wrapped }, key);
      const next = await change(this.barrier.current);
      const previousHeader = this.header;
      const undo = this.barrier.adopt(next);
      const rewrapped = Barrier.wrapKeyring(sodium, next, rootKey, vaultId, kdf);
      this.header = { ...this.header, keyring: Buffer.from(rewrapped).toString('base64') };
      try {
        await this.snapshotHeld();
      } catch (err) {
        undo();
        this.header = previousHeader;
        throw err;
      }
      return next;
    });
  }

  /** Commits since the last snapshot plus the snapshot's own sequence: a monotonic commit counter. */
  get sequence(): number {
    return this.parts.journal.lastSequence;
  }

  get failure(): Error | null {
    const failed = this.parts.journal.failed;
    if (!failed) return null;
    return failed instanceof Error ? failed : new VaultError('VAULT_FAILED');
  }

  /** `snapshot: false` leaves the journal as a crash would (used by tests and emergency shutdown). */
  async close(options: { snapshot?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.background) await this.background;
    const release = await this.mutex.acquire();
    try {
      const snapshot = options.snapshot ?? true;
      if (snapshot && !this.parts.journal.failed && this.parts.journal.recordCount > 0)
        await this.snapshotHeld();
    } finally {
      await this.parts.journal.close().catch(() => undefined);
      this.connection.forgetStatements();
      this.parts.sqlite.close();
      this.barrier.seal();
      await this.parts.lock.release();
      release();
    }
  }

  /** Runs pending schema migrations, each in its own journaled transaction. */
  async migrate(): Promise<void> {
    const hasTable = await this.db
      .selectFrom(sql<{ name: string }>`sqlite_master`.as('m'))
      .select('m.name')
      .where('m.name', '=', 'schema_migrations')
      .executeTakeFirst();
    if (!hasTable) {
      await this.transaction(async (trx) => {
        await SCHEMA_MIGRATIONS_DDL.execute(trx);
      });
    }
    const applied = await this.db.selectFrom('schema_migrations').select('version').execute();
    const done = new Set(applied.map((r) => r.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await this.transaction(async (trx) => {
        await migration.up(trx);
        await trx
          .insertInto('schema_migrations')
          .values({
            version: migration.version,
            name: migration.name,
            applied_at: this.clock.now().toISOString(),
          })
          .execute();
      });
    }
  }

  /** Free space on the vault's disk; a file system that cannot tell counts as roomy. */
  private async freeDiskBytes(): Promise<number> {
    try {
      return await this.parts.fs.freeBytes(this.parts.paths.dir);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }

  /** Size of the SQLite database in memory; the caller holds the mutex. */
  private databaseBytes(): number {
    const pages = this.parts.sqlite.exec('PRAGMA page_count')[0]?.values[0]?.[0];
    const size = this.parts.sqlite.exec('PRAGMA page_size')[0]?.values[0]?.[0];
    return Number(pages ?? 0) * Number(size ?? 0);
  }

  private assertUsable(): void {
    if (this.closed) throw new VaultError('VAULT_CLOSED', 'The vault is closed.');
    const failure = this.parts.journal.failed;
    if (failure) throw failure instanceof VaultError ? failure : new VaultError('VAULT_FAILED');
  }

  private async acquireConnection(): Promise<SqlJsConnection> {
    if (this.tx.getStore()?.active) return this.connection;
    this.assertUsable();
    const release = await this.mutex.acquire();
    this.heldReleases.push(release);
    return this.connection;
  }

  private async releaseConnection(): Promise<void> {
    if (this.tx.getStore()?.active) return;
    this.heldReleases.shift()?.();
  }

  private recordWrite(sql: string, params: readonly SqlParam[]): void {
    const state = this.tx.getStore();
    if (!state?.active) {
      throw new VaultError('INTERNAL', 'Writes must go through vault.transaction().');
    }
    assertDeterministic(sql);
    state.statements.push([sql, [...params]]);
  }

  private maybeSnapshot(): void {
    if (this.background || this.closed) return;
    if (this.parts.journal.byteLength < this.parts.snapshotThresholdBytes) return;
    this.background = this.mutex
      .run(() => this.snapshotHeld())
      .catch((err: unknown) => {
        // The journal still holds every commit, so a failed snapshot loses nothing; it is retried later.
        this.backgroundError = err;
      })
      .finally(() => {
        this.background = null;
      });
  }

  /** Last error of a background snapshot, for diagnostics. */
  get lastBackgroundError(): unknown {
    return this.backgroundError;
  }

  /** Writes the snapshot and resets the journal; the caller holds the mutex. */
  private async snapshotHeld(): Promise<void> {
    const { journal, sodium, sqlite, paths } = this.parts;
    const keyring = this.barrier.current;
    await journal.idle();
    if (journal.failed) throw journal.failed;
    const sequence = journal.lastSequence;
    this.connection.forgetStatements();
    const image = sqlite.export();
    applyPragmas(sqlite);
    const term = keyring.activeTerm;
    const header: VaultHeader = {
      ...this.header,
      terms: keyring.terms,
      snapshot: { sequence, term, written_at: this.clock.now().toISOString() },
      acknowledged_mark: true,
    };
    try {
      await writeVaultFile(sodium, paths.vault, header, keyring.fileKey(term), image, this.parts.fs);
      this.header = header;
      await journal.reset(sequence, term, keyring.fileKey(term));
    } catch (err) {
      throw explainDiskFull(
        err,
        'the snapshot could not be written; nothing is lost, the journal still holds every commit',
      );
    }
  }
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely } from 'kysely';
import type { Database as SqlJsDatabase } from 'sql.js';
import { SegmentFiles } from '../../audit/segments/segment-files.ts';
import { SegmentedAuditStore } from '../../audit/segments/segmented-store.ts';
import type { AuditSegmentLimits } from '../../audit/segments/limits.ts';
import { AuditSpiller } from '../../audit/segments/spiller.ts';
import { VaultError } from '../../errors/catalogue.ts';
import type { Keyring } from '../../crypto/keyring.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import type { JournalWriter } from './journal.ts';
import type { JournaledStatement, SqlParam } from './journal-codec.ts';
import type { VaultLock } from './lock.ts';
import { runCompiledDirectly } from '../../storage/compiled-queries.ts';
import { migrateEmbedded } from './migrations.ts';
import { Mutex } from './mutex.ts';
import type { VaultPaths } from './paths.ts';
import type { Database } from '../../storage/schema.ts';
import { FreeSpaceGauge } from './free-space.ts';
import { readDiskSpace, vaultHeadroom } from '../../storage/headroom.ts';
import type { VaultHeadroom } from '../../storage/headroom.ts';
import { assertDatabaseHeadroom, assertDiskHeadroom } from './space-guard.ts';
import type { StorageLimits } from './space-guard.ts';
import { nodeStorageFs } from './storage-fs.ts';
import type { StorageFs } from './storage-fs.ts';
import { SqlJsConnection, SqlJsDialect, assertDeterministic } from './sqljs-dialect.ts';
import { TableChanges } from './table-changes.ts';
import type { VaultHeader } from './vault-file.ts';
import { Barrier } from '../../vault/barrier.ts';
import { assertEmbeddedTermsRetirable } from './embedded-term-uses.ts';
import { BarrierBackedVault } from '../../vault/barrier-vault.ts';
import { buildSnapshotFromFiles } from './snapshot-build.ts';
import { buildSnapshotInWorker } from './snapshot-thread.ts';
import { Snapshots } from './snapshots.ts';
import { readVaultStatus } from '../../vault/status.ts';
import type { TransactionOptions, VaultHandle } from '../../vault/types.ts';
import type { Clock } from '../../vault/clock.ts';
import type { KeySource } from '../../crypto/root-key.ts';
import type { VaultStatus } from '../../vault/status-schema.ts';

export const DEFAULT_SNAPSHOT_THRESHOLD = 64 * 1024 * 1024;

interface TransactionState {
  readonly statements: JournaledStatement[];
  active: boolean;
  /** A `read`: it holds the connection, and a write statement throws before it runs. */
  readonly readOnly?: boolean;
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
  /** A previous journal segment exists (a background snapshot did not finish before a crash). */
  readonly previousSegment?: boolean;
  /** When audit entries move to segment files and how large those grow. */
  readonly auditSegments: AuditSegmentLimits;
}

/**
 * The spiller's count of `audit_logs` rows (at most: the rowid range), asked after every commit:
 * `max` and `min` each in a subquery of its own, which SQLite answers from the two ends of the
 * rowid tree; together in one query they would read the whole table.
 */
export const AUDIT_ROWS_SQL =
  'SELECT coalesce((SELECT max(rowid) FROM audit_logs) - (SELECT min(rowid) FROM audit_logs) + 1, 0) AS n';

/**
 * A vault held open by this process: sql.js in memory, the journal on disk, the lock taken.
 * One mutex orders every access to the single sql.js connection; an AsyncLocalStorage marks the
 * code running inside a transaction so its queries use the connection the transaction holds.
 */
export class EmbeddedVault extends BarrierBackedVault implements VaultHandle {
  readonly backend = 'embedded';
  readonly db: Kysely<Database>;
  readonly path: string;
  readonly id: string;
  readonly clock: Clock;
  /** This process holds the vault file's exclusive lock: it sees every write. */
  readonly changes = new TableChanges();
  /** The audit log: sql.js's newest entries and the segment files the spiller moves the rest to. */
  readonly audit: SegmentedAuditStore;
  private readonly spiller: AuditSpiller;
  private readonly mutex = new Mutex();
  /**
   * Disabled when the vault closes: Node runs every enabled AsyncLocalStorage's hook for each new
   * promise, and a process that opens many vaults (a server's tests, a tool) would otherwise pay
   * for all the closed ones on every await (200 of them made an await ≈ 50 times dearer).
   */
  private readonly tx = new AsyncLocalStorage<TransactionState>();
  private readonly connection: SqlJsConnection;
  private readonly heldReleases: Array<() => void> = [];
  private readonly snapshots: Snapshots;
  /** The last commit when the vault was opened: a close after only reads writes no snapshot. */
  private readonly openedAt: number;
  private closed = false;
  private background: Promise<void> | null = null;
  private backgroundError: unknown = null;
  /** Snapshots being written: they take disk space the free-space reading does not count. */
  private snapshotting = 0;
  private readonly disk: FreeSpaceGauge;

  constructor(private readonly parts: EmbeddedVaultParts) {
    super(new Barrier(parts.sodium, parts.keyring));
    this.path = parts.paths.vault;
    this.id = parts.header.vault_id;
    this.clock = parts.clock;
    this.openedAt = parts.journal.lastSequence;
    this.snapshots = new Snapshots(
      {
        sodium: parts.sodium,
        fs: parts.fs,
        sqlite: parts.sqlite,
        paths: parts.paths,
        journal: parts.journal,
        clock: parts.clock,
        keyring: () => this.barrier.current,
        underVaultLock: (fn) => this.mutex.run(fn),
        beforeExport: () => this.connection.forgetStatements(),
        // A file layer other than the real one (tests simulating faults) cannot cross into a
        // worker thread: the same build then runs here, through that layer.
        buildFromFiles: (request) =>
          parts.fs === nodeStorageFs
            ? buildSnapshotInWorker(request)
            : buildSnapshotFromFiles(parts.sodium, parts.fs, request),
      },
      parts.header,
      parts.previousSegment ?? false,
    );
    this.disk = new FreeSpaceGauge(
      () => this.readFreeDiskBytes(),
      () => this.clock.now().getTime(),
      () => parts.journal.appendedBytes,
    );
    this.connection = new SqlJsConnection(parts.sqlite, (sql, params) => this.recordWrite(sql, params));
    const segmentKey = () => this.barrier.current.auditSegmentKey();
    const files = new SegmentFiles(parts.sodium, parts.fs, parts.paths.auditSegments, this.id, segmentKey);
    this.audit = new SegmentedAuditStore(this, files);
    const spillTable = {
      pendingRows: () => this.auditRows(),
      readArrays: (sql: string, params: readonly unknown[]) =>
        this.read(async () => this.connection.readArrays(sql, params)),
    };
    this.spiller = new AuditSpiller(this, this.audit, spillTable, parts.auditSegments);
    this.db = new Kysely<Database>({
      dialect: new SqlJsDialect(
        () => this.acquireConnection(),
        () => this.releaseConnection(),
      ),
    });
    // Inside a transaction the connection is already held: compiled statements run on it directly.
    // Outside one, a statement runs at once when nobody holds or waits for the lock (a synchronous
    // run is then the same as taking and releasing it around the statement); otherwise it queues
    // for the lock through Kysely.
    runCompiledDirectly(this.db, (sql, parameters) => {
      if (this.tx.getStore()?.active) return this.connection.run(sql, parameters);
      if (this.closed || this.parts.journal.failed) return null; // Kysely's path gives the error
      return this.mutex.runIfFree(() => this.connection.run(sql, parameters)) ?? null;
    });
  }

  inTransaction(): boolean {
    return this.tx.getStore()?.active === true;
  }

  async transaction<T>(
    fn: (trx: Kysely<Database>) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
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
      if (options.freesDatabaseSpace !== true)
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
        this.changes.noteTransactionEnd();
      }
      durable =
        state.statements.length > 0
          ? this.parts.journal.append(state.statements, this.clock.now().toISOString(), options?.onJournaled)
          : Promise.resolve();
    } finally {
      release();
    }
    await durable;
    this.maybeSnapshot();
    this.spiller.poke();
    return result;
  }

  /** Opens the audit log's segments (after the migrations) and lets the spiller run. */
  async startAudit(): Promise<void> {
    await this.audit.open();
    this.spiller.start();
  }

  /** Waits for a spill of audit entries running in the background (tests, diagnostics). */
  async auditSettled(): Promise<void> {
    await this.spiller.idle();
  }

  /**
   * Rows in `audit_logs` (at most; from the rowid range), when the lock is free this instant.
   */
  private auditRows(): number | undefined {
    if (this.closed) return undefined;
    return this.mutex.runIfFree(() => {
      return Number(this.connection.run<{ n: number }>(AUDIT_ROWS_SQL, []).rows[0]?.n ?? 0);
    });
  }

  /**
   * Holds the lock for `fn`'s statements without BEGIN, COMMIT, the headroom checks or a journal
   * record: every statement runs on the one connection, so nothing else runs between them.
   */
  async read<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    if (this.tx.getStore()?.active) return fn(this.db);
    this.assertUsable();
    const release = await this.mutex.acquire();
    const state: TransactionState = { statements: [], active: true, readOnly: true };
    try {
      this.assertUsable();
      return await this.tx.run(state, () => fn(this.db));
    } finally {
      state.active = false;
      release();
    }
  }

  /** One writer runs at a time here: every named lock is already held by the transaction. */
  async lockFor(): Promise<void> {
    return;
  }

  /** Writes a snapshot and starts an empty journal; traffic continues while it is written. */
  async compact(): Promise<void> {
    this.assertUsable();
    await this.spiller.drain();
    await this.writingSnapshot(() => this.snapshots.background());
  }

  /**
   * A snapshot written on this thread under the vault's lock, for a vault nobody else uses yet (a
   * new one, before `createVault` returns it): no traffic waits for it, so a background build's
   * worker thread would only cost its start and its own sql.js and libsodium (≈ 0.1 s of CPU).
   */
  async compactHeld(): Promise<void> {
    this.assertUsable();
    await this.snapshots.exclusive(() => this.writingSnapshot(() => this.snapshots.writeHeld()));
  }

  /** Runs a snapshot write; the free-space reading is taken afresh during and after it. */
  private async writingSnapshot<T>(write: () => Promise<T>): Promise<T> {
    this.snapshotting++;
    this.disk.invalidate();
    try {
      return await write();
    } finally {
      this.snapshotting--;
      this.disk.invalidate();
    }
  }

  /** The files' status; the database's size while the vault is open (a closed vault reads as no server's). */
  async status(): Promise<VaultStatus> {
    const open = this.closed
      ? null
      : { databaseBytes: await this.databaseBytesNow(), limits: this.parts.limits };
    return readVaultStatus(this.path, open);
  }

  async headroom(): Promise<VaultHeadroom> {
    this.assertUsable();
    const databaseBytes = await this.databaseBytesNow();
    const disk = await readDiskSpace(this.parts.paths.dir);
    return vaultHeadroom({ databaseBytes, limits: this.parts.limits, disk });
  }

  async setLockUrl(url: string | undefined): Promise<void> {
    if (this.closed) throw new VaultError('VAULT_CLOSED', 'The vault is closed.');
    await this.parts.lock.setUrl(url);
  }

  async addKeyTerm(key: KeySource): Promise<number> {
    const next = await this.replaceKeyring(key, async (current) => current.withNewTerm(this.clock.now()));
    return next.activeTerm;
  }

  async retireOldKeyTerms(key: KeySource): Promise<number[]> {
    const before = this.barrier.keyTerms;
    const next = await this.replaceKeyring(key, async (current) => {
      assertEmbeddedTermsRetirable(this.parts.sqlite, current.activeTerm);
      return current.withOnlyActiveTerm();
    });
    return before.filter((t) => !next.terms.includes(t));
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
    const snapshots = this.snapshots;
    return snapshots.exclusive(() =>
      this.mutex.run(async () => {
        const { sodium } = this.parts;
        const current = snapshots.header;
        const { vault_id: vaultId, kdf } = current;
        const wrapped = new Uint8Array(Buffer.from(current.keyring, 'base64'));
        const rootKey = Barrier.checkedRootKey(sodium, { vaultId, kdf, wrapped }, key);
        const next = await change(this.barrier.current);
        const undo = this.barrier.adopt(next);
        const rewrapped = Barrier.wrapKeyring(sodium, next, rootKey, vaultId, kdf);
        snapshots.header = { ...current, keyring: Buffer.from(rewrapped).toString('base64') };
        try {
          await this.writingSnapshot(() => snapshots.writeHeldLocked());
        } catch (err) {
          undo();
          snapshots.header = current;
          throw err;
        }
        return next;
      }),
    );
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

  /**
   * Writes a snapshot when something was committed since the open (or a previous journal segment
   * remains), so a close after only reads costs nothing. `snapshot: false` leaves the journal as a
   * crash would (used by tests and emergency shutdown).
   */
  async close(options: { snapshot?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    // The audit entries move to segments first, so the last snapshot does not carry them.
    if ((options.snapshot ?? true) && !this.parts.journal.failed)
      await this.spiller.drain().catch(() => undefined);
    await this.spiller.stop();
    if (this.closed) return;
    this.closed = true;
    if (this.background) await this.background;
    await this.snapshots.exclusive(async () => {
      const release = await this.mutex.acquire();
      try {
        const journal = this.parts.journal;
        const changed = journal.lastSequence > this.openedAt || this.snapshots.hasPreviousSegment;
        if ((options.snapshot ?? true) && !journal.failed && changed) await this.snapshots.writeHeldLocked();
      } finally {
        try {
          await this.parts.journal.close().catch(() => undefined);
          await this.audit.close().catch(() => undefined);
          this.connection.forgetStatements();
          this.parts.sqlite.close();
          this.barrier.seal();
          await this.parts.lock.release();
        } finally {
          // Also when the lock file cannot be read or removed (a failed disk): the error reaches
          // the caller, but the closed vault must not keep its store enabled, which every later
          // promise of the process would pay for.
          release();
          this.tx.disable();
        }
      }
    });
  }

  /** Runs pending schema migrations, each in its own journaled transaction. */
  async migrate(): Promise<void> {
    await migrateEmbedded(this);
  }

  /**
   * Free space on the vault's disk, from a reading at most a second old less what the journal
   * wrote since (core/backends/embedded/free-space.ts); while a snapshot is being written, read each time.
   */
  private async freeDiskBytes(): Promise<number> {
    if (this.snapshotting > 0) this.disk.invalidate();
    return this.disk.freeBytes(this.parts.limits.minFreeDiskBytes);
  }

  /** A file system that cannot tell its free space counts as roomy. */
  private async readFreeDiskBytes(): Promise<number> {
    try {
      return await this.parts.fs.freeBytes(this.parts.paths.dir);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }

  /** Size of the SQLite database in memory, taking the mutex for it. */
  private databaseBytesNow(): Promise<number> {
    return this.mutex.run(async () => this.databaseBytes());
  }

  /** Size of the SQLite database in memory; the caller holds the mutex. */
  private databaseBytes(): number {
    // Through the connection's prepared statements: `exec` would parse both pragmas every time.
    const pages = this.connection.run<{ page_count: number }>('PRAGMA page_count', []).rows[0]?.page_count;
    const size = this.connection.run<{ page_size: number }>('PRAGMA page_size', []).rows[0]?.page_size;
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
    if (!state?.active || state.readOnly) {
      throw new VaultError('INTERNAL', 'Writes must go through vault.transaction().');
    }
    assertDeterministic(sql);
    this.changes.noteWrite(sql);
    state.statements.push([sql, [...params]]);
  }

  private maybeSnapshot(): void {
    if (this.background || this.closed) return;
    if (this.parts.journal.byteLength < this.parts.snapshotThresholdBytes) return;
    this.background = this.writingSnapshot(() => this.snapshots.background())
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
}

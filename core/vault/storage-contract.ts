import type { Kysely } from 'kysely';
import type { AuditStore } from '../audit/audit-store.ts';
import type { VaultHeadroom } from '../storage/headroom.ts';
import type { Database } from '../storage/schema.ts';
import type { TableChanges } from '../backends/embedded/table-changes.ts';
import type { Clock } from './clock.ts';
import type { VaultStatus } from './status-schema.ts';

export interface TransactionOptions {
  /**
   * The transaction moves data out of the database (the audit spill): it runs even when the
   * database is past its size limit, since refusing it would keep the vault full for good. The
   * disk's reserve still applies.
   */
  readonly freesDatabaseSpace?: boolean;
  /**
   * Called when the commit's record is durable but the commit is not yet acknowledged (embedded:
   * the journal record is on disk, the acknowledged mark is still being written), so a writer that
   * runs its transactions one after another may start the next, whose record is then written while
   * this one's mark is. Not called where nothing follows the commit (PostgreSQL), for a transaction
   * that writes nothing, nor for one joining a running transaction. Must not throw.
   */
  readonly onJournaled?: () => void;
}

/**
 * What a storage backend implements (the embedded sql.js file, PostgreSQL). It stores rows and runs
 * transactions; it holds no key material of its own: keys and encryption belong to the barrier
 * (core/vault/barrier.ts), which hands the backend only sealed bytes. Code above this contract
 * (core services, server, CLI) must not know which backend it runs on.
 */

export interface VaultStorage {
  /** Which backend stores the rows: what the operations on the vault file itself (backup) check. */
  readonly backend: 'embedded' | 'postgres';
  /** Where the vault lives: the vault file's path, or the database URL without its password. */
  readonly path: string;
  readonly id: string;
  readonly clock: Clock;
  /** Read-only query builder: a write statement outside `transaction` throws. */
  readonly db: Kysely<Database>;
  /**
   * Runs `fn` in one database transaction. Resolves after the commit is durable; if `fn` throws,
   * nothing is written and the error is rethrown. A call inside a running transaction joins it.
   */
  transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs `fn`'s reads together, for answers that must agree with each other (a page and its
   * total), without a write transaction where the backend can: embedded, `fn` holds the one
   * connection (no other statement runs until it ends) and a write inside it throws; PostgreSQL,
   * a transaction. A call inside a running transaction joins it.
   */
  read<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Whether the caller runs inside a transaction (its `transaction` calls would join it). */
  inTransaction(): boolean;
  /**
   * Inside a transaction: holds a lock named `name` until the transaction ends, so two writers that
   * check then insert the same thing (e.g. a token deduplicated by fingerprint) run one after the
   * other. Embedded: nothing to do, one writer runs at a time; PostgreSQL: an advisory lock.
   */
  lockFor(name: string): Promise<void>;
  /**
   * Where the audit log is read from (list, verify, copy) and a tenant's chain dropped. Entries are
   * written with `appendAuditBatch` in the transaction of the change, on every backend.
   */
  readonly audit: AuditStore;
  /** Compacts storage now (embedded: writes a snapshot and resets the journal). */
  compact(): Promise<void>;
  status(): Promise<VaultStatus>;
  /**
   * The database's size against its limit and the disk's free space against the reserve
   * (core/storage/headroom.ts); PostgreSQL has neither limit: its limit and disk are null.
   */
  headroom(): Promise<VaultHeadroom>;
  /**
   * The writes of this process per table, for caches of rows (core/backends/embedded/table-changes.ts); null
   * where other processes may write the same data (PostgreSQL), so that nothing is cached there.
   */
  readonly changes: TableChanges | null;
  /** Number of the last committed transaction: a monotonic, cheap commit counter. */
  readonly sequence: number;
  /**
   * Why the vault stopped accepting writes (a failed journal write, e.g. a full disk), or null while
   * it is healthy. Once set it stays set until the vault is reopened.
   */
  readonly failure: Error | null;
  /** Records the URL of the server holding the vault (embedded: in the lock file). */
  setLockUrl(url: string | undefined): Promise<void>;
  /** Releases the storage and seals the barrier (embedded: snapshot unless `snapshot: false`). */
  close(options?: { snapshot?: boolean }): Promise<void>;
}

import type { AuditSegmentLimits } from '../audit/segments/limits.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { KdfHeader, KdfLimits, KeySource } from '../crypto/root-key.ts';
import type { StorageLimits } from '../backends/embedded/space-guard.ts';
import type { StorageFs } from '../backends/embedded/storage-fs.ts';
import type { VaultBarrier } from './barrier.ts';
import type { Clock } from './clock.ts';
import type { VaultStorage } from './storage-contract.ts';

export type { TransactionOptions } from './storage-contract.ts';

export interface OpenVaultOptions {
  /** Path of the vault file, e.g. `~/.svc/vault.svc`. The journal and lock live beside it. */
  readonly path: string;
  readonly key: KeySource;
  /** Take a snapshot when the journal grows past this many bytes. Default 64 MiB. */
  readonly snapshotThresholdBytes?: number;
  readonly clock?: Clock;
  /** The file layer; the real file system unless a test simulates power loss. */
  readonly fs?: StorageFs;
  /** Headroom below which writes are refused (VAULT_DISK_FULL). Defaults: DEFAULT_STORAGE_LIMITS. */
  readonly limits?: Partial<StorageLimits>;
  /** When audit entries leave memory for segment files (DEFAULT_AUDIT_SEGMENT_LIMITS); tests set small ones. */
  readonly auditSegments?: Partial<AuditSegmentLimits>;
  /** Called once a vault has opened, with where the open spent its time (benchmarks, diagnostics). */
  readonly onOpenTimes?: (times: OpenTimes) => void;
}

/** Where opening a vault spent its time, by phase, in milliseconds of wall-clock time. */
export interface OpenTimes {
  /** Checking the key, taking the lock, reading the header and unwrapping the keyring. */
  readonly unlockMs: number;
  /** Reading the snapshot body from the file. */
  readonly readMs: number;
  /** Authenticating and decrypting it into the database image. */
  readonly decryptMs: number;
  /** Loading the image into sql.js. */
  readonly sqlLoadMs: number;
  /** Reading and checking the journal segments and replaying their commits. */
  readonly journalMs: number;
  /** Running pending migrations (and the snapshot a vault that needs one is given at open). */
  readonly migrationsMs: number;
}

export interface CreateVaultOptions extends OpenVaultOptions {
  readonly kdf?: KdfLimits;
}

/**
 * What a vault copied from another backend keeps: its id, creation time, KDF and keyring, so the
 * same key opens the copy and every envelope, fingerprint and audit hash stays valid.
 */
export interface AdoptedIdentity {
  readonly vaultId: string;
  readonly createdAt: string;
  readonly kdf: KdfHeader;
  readonly keyring: Keyring;
}

/**
 * An open, unlocked vault held by this process: a storage backend (`VaultStorage`, which every
 * backend implements) joined with the barrier that owns keys and encryption (`VaultBarrier`).
 * Reads go through `db`; every write goes through `transaction`.
 */
export interface VaultHandle extends VaultStorage, VaultBarrier {}

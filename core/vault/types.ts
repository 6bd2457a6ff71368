import type { Kysely } from 'kysely';
import type { LookupPurpose } from '../crypto/keyring.ts';
import type { Database } from '../storage/schema.ts';
import type { StorageLimits } from '../storage/space-guard.ts';
import type { StorageFs } from '../storage/storage-fs.ts';

/** How the root key is supplied. */
export type KeySource =
  | { readonly kind: 'passphrase'; readonly passphrase: string }
  /** 32 raw bytes, from a key file or SVC_VAULT_KEY (base64). */
  | { readonly kind: 'key'; readonly key: Uint8Array };

/** Argon2id cost. Defaults to libsodium's MODERATE; tests may pass INTERACTIVE-sized limits. */
export interface KdfLimits {
  readonly opsLimit: number;
  readonly memLimit: number;
}

export interface Clock {
  now(): Date;
}

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
}

export interface CreateVaultOptions extends OpenVaultOptions {
  readonly kdf?: KdfLimits;
}

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  /** Set when a server holds the vault. */
  readonly url?: string;
}

/** What `svc vault status` shows: never key material. Readable without the key. */
export interface VaultStatus {
  readonly path: string;
  readonly journalPath: string;
  readonly vaultId: string;
  readonly createdAt: string;
  readonly formatVersion: number;
  readonly keySource: 'passphrase' | 'key';
  readonly keyTerms: readonly number[];
  readonly snapshotBytes: number;
  readonly snapshotSequence: number;
  readonly snapshotWrittenAt: string;
  readonly journalBytes: number;
  /** Complete records in the journal (commits since the snapshot). */
  readonly journalRecords: number;
  readonly lockHolder: LockHolder | null;
}

/**
 * An open, unlocked vault held by this process. Reads go through `db`; every write goes through
 * `transaction`, which is the only way to change the database and the only thing the journal sees.
 */
export interface VaultHandle {
  readonly path: string;
  readonly id: string;
  readonly clock: Clock;
  /** Read-only query builder: a write statement outside `transaction` throws. */
  readonly db: Kysely<Database>;
  /**
   * Runs `fn` in one database transaction. Resolves after the commit is durable (journal fsynced);
   * if `fn` throws, nothing is written and the error is rethrown.
   */
  transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Writes a snapshot now and resets the journal. */
  compact(): Promise<void>;
  status(): Promise<VaultStatus>;
  /** Number of the last committed transaction: a monotonic, cheap commit counter. */
  readonly sequence: number;
  /**
   * Why the vault stopped accepting writes (a failed journal write, e.g. a full disk), or null while
   * it is healthy. Once set it stays set until the vault is reopened.
   */
  readonly failure: Error | null;
  /** Records the URL of the server holding the vault in the lock file. */
  setLockUrl(url: string | undefined): Promise<void>;
  /** Keyed BLAKE2b of an API key (for lookup); the key itself is never stored. */
  hashApiKey(apiKey: string): Uint8Array;
  /**
   * Keyed BLAKE2b-256 with the key of `purpose`: lookup hashes of secrets (API keys, session tokens,
   * invitation secrets) and the audit log's hash chain.
   */
  keyedHash(purpose: LookupPurpose, message: Uint8Array | string): Uint8Array;
  /**
   * Seals a small secret (a per-tenant key) with the keyring's wrapping key of the active term.
   * `aad` binds it to where it is stored.
   */
  wrapSecret(plaintext: Uint8Array, aad: Uint8Array): { term: number; sealed: Uint8Array };
  /** Opens what `wrapSecret` sealed under `term`; throws VAULT_CORRUPT when it does not authenticate. */
  unwrapSecret(term: number, sealed: Uint8Array, aad: Uint8Array): Uint8Array;
  /** The active key term: new snapshots, journal records and wrapped keys are under it. */
  readonly keyTerm: number;
  /** Every key term the keyring still holds. */
  readonly keyTerms: readonly number[];
  /**
   * Adds a fresh key term and makes it active; the keyring is re-wrapped with the root key `key`
   * (checked first) and a snapshot is written under the new term. Returns the new term.
   */
  addKeyTerm(key: KeySource): Promise<number>;
  /**
   * Forgets every term but the active one; refused (VAULT_CORRUPT, nothing changed) while a wrapped
   * key or a token envelope is still under an older term. Returns the terms retired.
   */
  retireOldKeyTerms(key: KeySource): Promise<number[]>;
  /** Snapshot on clean close (unless `snapshot: false`), release the lock. */
  close(options?: { snapshot?: boolean }): Promise<void>;
}

import type { StorageHandle } from './storage-fs.ts';

/** Where reading a snapshot body spent its time, in milliseconds (added to as it goes). */
export interface SnapshotReadTimes {
  readMs: number;
  decryptMs: number;
}

/** A snapshot body to read: its bytes in the file, its key and what it must agree with. */
export interface SnapshotBody {
  readonly handle: StorageHandle;
  /** Offset of the body's first byte. */
  readonly start: number;
  /** The file's size: the body runs to the end of the file. */
  readonly end: number;
  readonly fileKey: Uint8Array;
  readonly vaultId: string;
  /** The error for a damaged body (VAULT_CORRUPT, naming the file and `why`). */
  corrupt(why: string): Error;
  /** Checks the decrypted metadata chunk against the header; returns the image's length. */
  imageBytes(meta: Uint8Array): number;
}

/** Decrypts and verifies one body format into the SQLite image. */
export type SnapshotBodyReader = (body: SnapshotBody, times: SnapshotReadTimes) => Promise<Uint8Array>;

import { VaultError } from '../../errors/catalogue.ts';
import { isDiskFull } from './storage-fs.ts';

/**
 * Headroom the vault keeps so that it refuses writes with a clear problem before anything breaks:
 * a write that fails half-way through the journal makes the vault fail (it must be reopened), and
 * sql.js cannot grow its WebAssembly memory past 4 GiB — and a snapshot needs a second copy of
 * the database in memory and on disk.
 */
export interface StorageLimits {
  /** Writes are refused while the disk holding the vault has less free space than this. */
  readonly minFreeDiskBytes: number;
  /** Writes are refused once the database (SQLite pages in memory) is this large. */
  readonly maxDatabaseBytes: number;
}

const MIB = 1024 * 1024;

export const DEFAULT_STORAGE_LIMITS: StorageLimits = {
  minFreeDiskBytes: 64 * MIB,
  // Half the 4 GiB WebAssembly limit: the export for a snapshot holds a second copy of the image.
  maxDatabaseBytes: 1536 * MIB,
};

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;
}

/** Throws VAULT_DISK_FULL when the disk's free space is below the headroom. */
export function assertDiskHeadroom(freeBytes: number, limits: StorageLimits, what: string): void {
  if (freeBytes >= limits.minFreeDiskBytes) return;
  throw new VaultError(
    'VAULT_DISK_FULL',
    `The disk is full: ${mib(freeBytes)} free on the disk holding the vault, less than the ${mib(limits.minFreeDiskBytes)} it keeps in reserve, so ${what}. Free space on that disk, then try again.`,
  );
}

/** Throws VAULT_DISK_FULL when the database has reached its size limit. */
export function assertDatabaseHeadroom(databaseBytes: number, limits: StorageLimits): void {
  if (databaseBytes < limits.maxDatabaseBytes) return;
  throw new VaultError(
    'VAULT_DISK_FULL',
    `The vault's database is full: ${mib(databaseBytes)}, at its limit of ${mib(limits.maxDatabaseBytes)} (the embedded engine cannot hold more in memory), so writes are refused. Delete data and compact, or raise the limit if memory allows.`,
  );
}

/** A write that failed for lack of space says so plainly; anything else passes unchanged. */
export function explainDiskFull(err: unknown, what: string): unknown {
  if (!isDiskFull(err)) return err;
  return new VaultError(
    'VAULT_DISK_FULL',
    `The disk is full (ENOSPC): ${what}. Free space on the disk holding the vault, then try again.`,
    { cause: err },
  );
}

import { stat } from 'node:fs/promises';
import { loadSodium } from '../crypto/sodium.ts';
import { countJournalRecords } from '../backends/embedded/journal.ts';
import { readDiskSpace, vaultHeadroom } from '../storage/headroom.ts';
import { readLockHolder, type LockHolder } from '../backends/embedded/lock.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { DEFAULT_STORAGE_LIMITS, type StorageLimits } from '../backends/embedded/space-guard.ts';
import { openVaultFile, readHeader } from '../backends/embedded/vault-file.ts';
import type { LockHolderStatus, VaultStatus } from './status-schema.ts';

/**
 * Reads what can be known without the key (header, sizes, record count, lock holder, the disk's
 * headroom). The database's size is known only to the process holding the vault open, which
 * passes it (with its limits); otherwise it is null.
 */
export async function readVaultStatus(
  path: string,
  open: { readonly databaseBytes: number; readonly limits: StorageLimits } | null = null,
): Promise<VaultStatus> {
  const sodium = await loadSodium();
  const paths = vaultPaths(path);
  const handle = await openVaultFile(paths.vault);
  try {
    const { header, formatVersion } = await readHeader(sodium, handle, paths.vault);
    const { size } = await handle.stat();
    const journal = await countJournalRecords(paths.journal);
    const holder = await readLockHolder(paths.lock);
    return {
      path: paths.vault,
      journal_path: paths.journal,
      vault_id: header.vault_id,
      created_at: header.created_at,
      format_version: formatVersion,
      key_source: header.kdf.kind === 'argon2id' ? 'passphrase' : 'key',
      key_terms: [...header.terms],
      snapshot_bytes: size,
      snapshot_sequence: header.snapshot.sequence,
      snapshot_written_at: header.snapshot.written_at,
      journal_bytes: journal.bytes,
      journal_records: journal.records,
      lock_holder: holder === null ? null : lockHolderStatus(holder),
      headroom: vaultHeadroom({
        databaseBytes: open?.databaseBytes ?? null,
        limits: open?.limits ?? DEFAULT_STORAGE_LIMITS,
        disk: await readDiskSpace(paths.dir),
      }),
    };
  } finally {
    await handle.close();
  }
}

/** The lock file's record of its holder, as the status names its fields. */
function lockHolderStatus(holder: LockHolder): LockHolderStatus {
  return {
    pid: holder.pid,
    host: holder.host,
    started_at: holder.startedAt,
    ...(holder.url === undefined ? {} : { url: holder.url }),
  };
}

export async function vaultExists(path: string): Promise<boolean> {
  try {
    await stat(vaultPaths(path).vault);
    return true;
  } catch {
    return false;
  }
}

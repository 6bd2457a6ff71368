import { stat } from 'node:fs/promises';
import { loadSodium } from '../crypto/sodium.ts';
import { countJournalRecords } from '../storage/journal.ts';
import { readLockHolder } from '../storage/lock.ts';
import { vaultPaths } from '../storage/paths.ts';
import { openVaultFile, readHeader } from '../storage/vault-file.ts';
import type { VaultStatus } from './storage-contract.ts';

/** Reads what can be known without the key (header, sizes, record count, lock holder). */
export async function readVaultStatus(path: string): Promise<VaultStatus> {
  const sodium = await loadSodium();
  const paths = vaultPaths(path);
  const handle = await openVaultFile(paths.vault);
  try {
    const { header, formatVersion } = await readHeader(sodium, handle, paths.vault);
    const { size } = await handle.stat();
    const journal = await countJournalRecords(paths.journal);
    return {
      path: paths.vault,
      journalPath: paths.journal,
      vaultId: header.vault_id,
      createdAt: header.created_at,
      formatVersion,
      keySource: header.kdf.kind === 'argon2id' ? 'passphrase' : 'key',
      keyTerms: header.terms,
      snapshotBytes: size,
      snapshotSequence: header.snapshot.sequence,
      snapshotWrittenAt: header.snapshot.written_at,
      journalBytes: journal.bytes,
      journalRecords: journal.records,
      lockHolder: await readLockHolder(paths.lock),
    };
  } finally {
    await handle.close();
  }
}

export async function vaultExists(path: string): Promise<boolean> {
  try {
    await stat(vaultPaths(path).vault);
    return true;
  } catch {
    return false;
  }
}

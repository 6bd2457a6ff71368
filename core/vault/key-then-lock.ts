import type { Sodium } from '../crypto/sodium.ts';
import { acquireLock } from '../backends/embedded/lock.ts';
import type { VaultLock } from '../backends/embedded/lock.ts';
import type { VaultPaths } from '../backends/embedded/paths.ts';
import { nodeStorageFs } from '../backends/embedded/storage-fs.ts';
import type { StorageFs } from '../backends/embedded/storage-fs.ts';
import { openVaultFile, readHeader } from '../backends/embedded/vault-file.ts';
import { unlockKeyring } from './load.ts';
import type { RootKeyMemo } from './load.ts';
import type { KeySource } from '../crypto/root-key.ts';

export interface KeyCheckedLock {
  readonly lock: VaultLock;
  /** The derived root key: pass it to `unlockKeyring` under the lock to derive only once. */
  readonly memo: RootKeyMemo;
}

/**
 * The way into a vault that changes it: the key is checked against the vault file first, without
 * the lock, so a wrong key leaves no trace on disk (no lock file, no waiting for the holder); only
 * then is the lock taken. The caller must read the header again under the lock (the holder it
 * waited for may have written a new snapshot), unlock the keyring with the returned memo, and
 * release the lock whatever happens.
 */
export async function checkKeyThenLock(
  sodium: Sodium,
  paths: VaultPaths,
  key: KeySource,
  now: () => Date,
  fs: StorageFs = nodeStorageFs,
): Promise<KeyCheckedLock> {
  const memo: RootKeyMemo = {};
  const probe = await openVaultFile(paths.vault, fs);
  try {
    unlockKeyring(sodium, (await readHeader(sodium, probe, paths.vault)).header, key, memo);
  } finally {
    await probe.close();
  }
  return { lock: await acquireLock(paths.lock, now(), fs), memo };
}

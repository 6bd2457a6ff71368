import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSodium } from '../crypto/sodium.ts';
import { scanJournal } from '../storage/journal.ts';
import { vaultPaths } from '../storage/paths.ts';
import { openVaultFile, readHeader, readSnapshot } from '../storage/vault-file.ts';
import { unlockKeyring } from '../vault/load.ts';
import type { KeySource } from '../vault/types.ts';

/** Names of the files in `dir` whose bytes contain `needle` (UTF-8 or UTF-16). */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const name of await readdir(dir)) {
    const bytes = await readFile(join(dir, name));
    for (const encoding of ['utf8', 'utf16le'] as const) {
      if (bytes.includes(Buffer.from(needle, encoding))) hits.push(`${name} (${encoding})`);
    }
  }
  return hits;
}

/** The vault's files as the vault itself reads them: the snapshot's SQLite image and the journal's statements. */
export async function decryptedVaultFiles(
  vaultPath: string,
  key: KeySource,
): Promise<{ image: Buffer; journal: string }> {
  const sodium = await loadSodium();
  const paths = vaultPaths(vaultPath);
  const handle = await openVaultFile(paths.vault);
  try {
    const read = await readHeader(sodium, handle, paths.vault);
    const keyring = unlockKeyring(sodium, read.header, key);
    const image = Buffer.from(
      await readSnapshot(sodium, handle, paths.vault, read, keyring.fileKey(read.header.snapshot.term)),
    );
    const journalHandle = await openVaultFile(paths.journal);
    try {
      const scan = await scanJournal(sodium, journalHandle, paths.journal, (t) => keyring.fileKey(t));
      const journal = JSON.stringify(scan.entries, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
      );
      return { image, journal };
    } finally {
      await journalHandle.close();
    }
  } finally {
    await handle.close();
  }
}

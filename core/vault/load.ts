import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import type { Database as SqlJsDatabase } from 'sql.js';
import { VaultError } from '../errors/catalogue.ts';
import { Keyring } from '../crypto/keyring.ts';
import { deriveRootKey } from '../crypto/root-key.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { scanJournal } from '../storage/journal.ts';
import type { JournalScan } from '../storage/journal.ts';
import type { JournalEntry } from '../storage/journal-codec.ts';
import { applyPragmas } from '../storage/pragmas.ts';
import { keyringAad, readSnapshot } from '../storage/vault-file.ts';
import type { HeaderRead, VaultHeader } from '../storage/vault-file.ts';
import { loadSqlJs } from './sqljs.ts';
import type { KeySource } from './types.ts';

/**
 * Derives the root key and unwraps the keyring; a wrong key or passphrase gives one clear error.
 * Argon2id takes about a second, so a caller that reads the header twice (before and under the
 * lock) passes a `memo` to derive only once per KDF header.
 */
export function unlockKeyring(
  sodium: Sodium,
  header: VaultHeader,
  key: KeySource,
  memo?: RootKeyMemo,
): Keyring {
  const kdfText = JSON.stringify(header.kdf);
  let rootKey = memo && memo.kdf === kdfText ? memo.rootKey : undefined;
  if (!rootKey) {
    rootKey = deriveRootKey(sodium, key, header.kdf);
    if (memo) {
      memo.kdf = kdfText;
      memo.rootKey = rootKey;
    }
  }
  const keyring = Keyring.unwrap(
    sodium,
    rootKey,
    new Uint8Array(Buffer.from(header.keyring, 'base64')),
    keyringAad(header.vault_id, header.kdf),
  );
  if (!keyring) throw new VaultError('VAULT_WRONG_KEY');
  return keyring;
}

export interface RootKeyMemo {
  kdf?: string;
  rootKey?: Uint8Array;
}

export async function openJournalIfPresent(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export interface LoadedState {
  readonly sqlite: SqlJsDatabase;
  readonly scan: JournalScan | null;
  /** Sequence of the last commit applied (snapshot or journal). */
  readonly sequence: number;
}

/**
 * Decrypts the snapshot into sql.js and replays the journal's records after it. Reads only: the
 * caller decides whether to truncate a torn tail. Throws VAULT_CORRUPT (after freeing sql.js) when
 * the journal does not follow this snapshot.
 */
export async function loadState(
  sodium: Sodium,
  vaultPath: string,
  vaultHandle: FileHandle,
  read: HeaderRead,
  keyring: Keyring,
  journalPath: string,
  journalHandle: FileHandle | null,
): Promise<LoadedState> {
  const image = await readSnapshot(
    sodium,
    vaultHandle,
    vaultPath,
    read,
    keyring.fileKey(read.header.snapshot.term),
  );
  const scan = journalHandle
    ? await scanJournal(sodium, journalHandle, journalPath, (t) => keyring.fileKey(t))
    : null;
  const snapshotSequence = read.header.snapshot.sequence;
  if (scan) {
    if (scan.header.vaultId !== read.header.vault_id) {
      throw new VaultError('VAULT_CORRUPT', `The journal ${journalPath} belongs to another vault.`);
    }
    if (scan.header.baseSequence > snapshotSequence) {
      throw new VaultError(
        'VAULT_CORRUPT',
        `The journal ${journalPath} starts after commit ${snapshotSequence} of the snapshot: commits are missing.`,
      );
    }
  }
  const SQL = await loadSqlJs();
  const sqlite = new SQL.Database(image);
  applyPragmas(sqlite);
  let sequence = snapshotSequence;
  try {
    for (const entry of scan?.entries ?? []) {
      if (entry.seq <= snapshotSequence) continue;
      replay(sqlite, entry, journalPath);
      sequence = entry.seq;
    }
  } catch (err) {
    sqlite.close();
    throw err;
  }
  return { sqlite, scan, sequence };
}

function replay(sqlite: SqlJsDatabase, entry: JournalEntry, journalPath: string): void {
  try {
    sqlite.exec('BEGIN');
    for (const [sql, params] of entry.stmts)
      sqlite.run(sql, params as (string | number | null | Uint8Array)[]);
    sqlite.exec('COMMIT');
  } catch (err) {
    try {
      sqlite.exec('ROLLBACK');
    } catch {
      // already rolled back
    }
    throw new VaultError('VAULT_CORRUPT', `Replaying commit ${entry.seq} of ${journalPath} failed.`, {
      cause: err,
    });
  }
}

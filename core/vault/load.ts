import type { Database as SqlJsDatabase } from 'sql.js';
import { VaultError } from '../errors/catalogue.ts';
import { Keyring } from '../crypto/keyring.ts';
import { deriveRootKey } from '../crypto/root-key.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { scanJournal } from '../storage/journal.ts';
import type { JournalScan } from '../storage/journal.ts';
import type { JournalEntry } from '../storage/journal-codec.ts';
import { applyPragmas } from '../storage/pragmas.ts';
import { errnoOf } from '../storage/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../storage/storage-fs.ts';
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

export async function openJournalIfPresent(fs: StorageFs, path: string): Promise<StorageHandle | null> {
  try {
    return await fs.open(path, 'r');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return null;
    throw err;
  }
}

/** The acknowledged-commit mark as read before the journal (null: no mark file). */
export interface AcknowledgedRead {
  readonly path: string;
  readonly sequence: number | null;
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
 * the journal does not follow this snapshot, or when it ends before the acknowledged-commit mark
 * (which the caller reads before opening the journal: the mark never runs ahead of the journal).
 */
export async function loadState(
  sodium: Sodium,
  vaultPath: string,
  vaultHandle: StorageHandle,
  read: HeaderRead,
  keyring: Keyring,
  journalPath: string,
  journalHandle: StorageHandle | null,
  acknowledged: AcknowledgedRead,
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
  checkAcknowledged(read.header, scan, journalPath, acknowledged);
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

/**
 * Refuses a state that lost acknowledged commits: the journal (or the mark) missing from a vault
 * that keeps both, or a journal whose last intact record comes before the last acknowledged commit.
 * A torn final record that was never acknowledged is not a loss: the mark only moves after the
 * record's fsync, so it never counts that record.
 */
function checkAcknowledged(
  header: VaultHeader,
  scan: JournalScan | null,
  journalPath: string,
  acknowledged: AcknowledgedRead,
): void {
  const restore = 'Acknowledged commits may be lost; the files were left unchanged. Restore from a backup.';
  if (header.acknowledged_mark === true) {
    if (!scan) throw new VaultError('VAULT_CORRUPT', `The journal ${journalPath} is missing. ${restore}`);
    if (acknowledged.sequence === null) {
      throw new VaultError(
        'VAULT_CORRUPT',
        `The acknowledged-commit record ${acknowledged.path} is missing. ${restore}`,
      );
    }
  }
  if (acknowledged.sequence === null) return;
  const journalEnd = scan ? scan.header.baseSequence + scan.entries.length : 0;
  const durable = Math.max(header.snapshot.sequence, journalEnd);
  if (durable < acknowledged.sequence) {
    throw new VaultError(
      'VAULT_CORRUPT',
      `The journal ${journalPath} ends at commit ${durable}, but commits up to ${acknowledged.sequence} were acknowledged: its tail was cut, zeroed or replaced. ${restore}`,
    );
  }
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

import type { Database as SqlJsDatabase } from 'sql.js';
import { VaultError } from '../errors/catalogue.ts';
import { Keyring } from '../crypto/keyring.ts';
import { deriveRootKey } from '../crypto/root-key.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { scanJournal } from '../backends/embedded/journal.ts';
import type { JournalScan } from '../backends/embedded/journal.ts';
import type { JournalEntry } from '../backends/embedded/journal-codec.ts';
import { applyPragmas } from '../backends/embedded/pragmas.ts';
import { errnoOf } from '../backends/embedded/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../backends/embedded/storage-fs.ts';
import { keyringAad, readSnapshot } from '../backends/embedded/vault-file.ts';
import type { HeaderRead, SnapshotTimes, VaultHeader } from '../backends/embedded/vault-file.ts';
import { loadSqlJs } from '../backends/embedded/sqljs.ts';
import type { KeySource } from '../crypto/root-key.ts';

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

/** The journal files of a vault, opened for reading (null: the file does not exist). */
export interface JournalHandles {
  readonly path: string;
  readonly handle: StorageHandle | null;
  /** The segment a background snapshot replaces, present until that snapshot is on disk. */
  readonly previousPath: string;
  readonly previous: StorageHandle | null;
}

/** Opens the journal segments for reading; the previous segment first, as it is the older. */
export async function openJournals(
  fs: StorageFs,
  paths: { readonly journal: string; readonly previousJournal: string },
): Promise<JournalHandles> {
  const previous = await openJournalIfPresent(fs, paths.previousJournal);
  try {
    const handle = await openJournalIfPresent(fs, paths.journal);
    return { path: paths.journal, handle, previousPath: paths.previousJournal, previous };
  } catch (err) {
    await previous?.close();
    throw err;
  }
}

export async function closeJournals(journals: JournalHandles): Promise<void> {
  await journals.previous?.close();
  await journals.handle?.close();
}

export interface LoadedState {
  readonly sqlite: SqlJsDatabase;
  /** The current journal segment. */
  readonly scan: JournalScan | null;
  /** The previous segment, when a background snapshot did not finish. */
  readonly previous: JournalScan | null;
  /** Sequence of the last commit applied (snapshot or journal). */
  readonly sequence: number;
}

/**
 * Decrypts the snapshot into sql.js and replays the journal segments' records after it (the
 * previous segment, then the current one). Reads only: the caller decides whether to truncate a
 * torn tail. Throws VAULT_CORRUPT (after freeing sql.js) when a segment does not follow what came
 * before it, or when the journal ends before the acknowledged-commit mark (which the caller reads
 * before opening the journal: the mark never runs ahead of the journal).
 */
export async function loadState(
  sodium: Sodium,
  vaultPath: string,
  vaultHandle: StorageHandle,
  read: HeaderRead,
  keyring: Keyring,
  journals: JournalHandles,
  acknowledged: AcknowledgedRead,
  onTimes?: (times: LoadTimes) => void,
): Promise<LoadedState> {
  let snapshotTimes: SnapshotTimes = { readMs: 0, decryptMs: 0 };
  const image = await readSnapshot(
    sodium,
    vaultHandle,
    vaultPath,
    read,
    keyring.fileKey(read.header.snapshot.term),
    (times) => (snapshotTimes = times),
  );
  const scanStarted = performance.now();
  const scanOf = (handle: StorageHandle | null, path: string) =>
    handle ? scanJournal(sodium, handle, path, (t) => keyring.fileKey(t)) : Promise.resolve(null);
  const previous = await scanOf(journals.previous, journals.previousPath);
  const scan = await scanOf(journals.handle, journals.path);
  const segments = [
    { scan: previous, path: journals.previousPath },
    { scan, path: journals.path },
  ].filter((s): s is JournalSegment => s.scan !== null);
  const reach = checkSegmentsFollow(read.header, segments);
  checkAcknowledged(read.header, scan, reach, journals.path, acknowledged);
  const scanMs = performance.now() - scanStarted;
  let replayTimes: ReplayTimes = { sqlLoadMs: 0, replayMs: 0 };
  const { sqlite, sequence } = await replaySegments(
    image,
    read.header.snapshot.sequence,
    segments,
    (times) => (replayTimes = times),
  );
  onTimes?.({
    ...snapshotTimes,
    sqlLoadMs: replayTimes.sqlLoadMs,
    journalMs: scanMs + replayTimes.replayMs,
  });
  return { sqlite, scan, previous, sequence };
}

/** Where `loadState` spent its time, in milliseconds. */
export interface LoadTimes extends SnapshotTimes {
  readonly sqlLoadMs: number;
  /** Reading and checking the journal segments, and replaying their commits. */
  readonly journalMs: number;
}

/** Where `replaySegments` spent its time, in milliseconds. */
export interface ReplayTimes {
  readonly sqlLoadMs: number;
  readonly replayMs: number;
}

/** A journal segment read for replay, with the path its errors name. */
export interface JournalSegment {
  readonly scan: JournalScan;
  readonly path: string;
}

/**
 * Checks that the segments (oldest first) belong to the snapshot's vault and leave no gap: each
 * starts at or before the last commit of what precedes it. Returns the last commit they reach.
 */
export function checkSegmentsFollow(header: VaultHeader, segments: readonly JournalSegment[]): number {
  let reach = header.snapshot.sequence;
  for (const segment of segments) {
    if (segment.scan.header.vaultId !== header.vault_id) {
      throw new VaultError('VAULT_CORRUPT', `The journal ${segment.path} belongs to another vault.`);
    }
    if (segment.scan.header.baseSequence > reach) {
      throw new VaultError(
        'VAULT_CORRUPT',
        `The journal ${segment.path} starts after commit ${reach}: commits are missing.`,
      );
    }
    reach = Math.max(reach, segmentEnd(segment.scan));
  }
  return reach;
}

/**
 * Loads the snapshot image into sql.js and applies the segments' commits after `sequence` (the
 * snapshot's), oldest first. Returns the database and the last commit applied; frees sql.js when
 * a commit fails to replay.
 */
export async function replaySegments(
  image: Uint8Array,
  sequence: number,
  segments: readonly JournalSegment[],
  onTimes?: (times: ReplayTimes) => void,
): Promise<{ sqlite: SqlJsDatabase; sequence: number }> {
  const loadStarted = performance.now();
  const SQL = await loadSqlJs();
  const sqlite = new SQL.Database(image);
  applyPragmas(sqlite);
  const replayStarted = performance.now();
  let last = sequence;
  try {
    for (const segment of segments) {
      for (const entry of segment.scan.entries) {
        if (entry.seq <= last) continue;
        replay(sqlite, entry, segment.path);
        last = entry.seq;
      }
    }
  } catch (err) {
    sqlite.close();
    throw err;
  }
  onTimes?.({ sqlLoadMs: replayStarted - loadStarted, replayMs: performance.now() - replayStarted });
  return { sqlite, sequence: last };
}

/** Sequence of a segment's last complete record (its base when it has none). */
export function segmentEnd(scan: JournalScan): number {
  return scan.header.baseSequence + scan.entries.length;
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
  durable: number,
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

import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  copyCommittedSegments,
  installSegments,
  segmentRecordsOf,
} from '../../audit/segments/segment-copy.ts';
import { VaultError } from '../../errors/catalogue.ts';
import { deriveRootKey, newKdfHeader } from '../../crypto/root-key.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import { syncDirectory, writeFileAtomically, writeFully } from './durable-fs.ts';
import { createAcknowledged, readAcknowledged } from './acknowledged.ts';
import { createJournalFile } from './journal.ts';
import { nodeStorageFs } from './storage-fs.ts';
import type { StorageHandle } from './storage-fs.ts';
import { acquireLock } from './lock.ts';
import { vaultPaths } from './paths.ts';
import {
  keyringAad,
  openVaultFile,
  readHeader,
  readSnapshot,
  rewriteHeader,
  writeVaultFile,
} from './vault-file.ts';
import type { VaultHeader } from './vault-file.ts';
import { systemClock } from '../../vault/clock.ts';
import { checkKeyThenLock } from '../../vault/key-then-lock.ts';
import { rekeyPostgresVault } from '../postgres/postgres-vault.ts';
import { closeJournals, loadState, openJournals, unlockKeyring } from '../../vault/load.ts';
import type { JournalHandles, RootKeyMemo } from '../../vault/load.ts';
import { loadSqlJs } from './sqljs.ts';
import { vaultExists } from '../../vault/status.ts';
import type { Clock } from '../../vault/clock.ts';
import type { KdfLimits, KeySource } from '../../crypto/root-key.ts';

export interface BackupOptions {
  readonly path: string;
  readonly key: KeySource;
  readonly out: string;
  readonly force?: boolean;
  readonly clock?: Clock;
}

/**
 * Writes a consistent encrypted copy of the last committed state, without the lock: a snapshot file
 * is never changed once renamed into place and the journal only grows, so the snapshot plus the
 * journal's complete records is a state that existed. If a new snapshot replaced the journal between
 * our two opens, we read again.
 */
export async function backupVault(options: BackupOptions): Promise<{ sequence: number; bytes: number }> {
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const paths = vaultPaths(options.path);
  if (resolve(options.out) === resolve(paths.vault)) {
    throw new VaultError('USAGE', 'The backup file cannot be the vault itself.');
  }
  if (!options.force && (await exists(options.out))) {
    throw new VaultError('VAULT_EXISTS', `${options.out} already exists; pass --force to replace it.`);
  }
  const memo: RootKeyMemo = {};
  for (let attempt = 0; attempt < 5; attempt++) {
    const handle = await openVaultFile(paths.vault);
    let journals: JournalHandles | null = null;
    try {
      const read = await readHeader(sodium, handle, paths.vault);
      const keyring = unlockKeyring(sodium, read.header, options.key, memo);
      // The mark is read before the journal is opened: it never runs ahead of the journal.
      const acknowledged = await readAcknowledged(
        sodium,
        nodeStorageFs,
        paths.acknowledged,
        read.header.vault_id,
      );
      journals = await openJournals(nodeStorageFs, paths);
      let state;
      try {
        state = await loadState(sodium, paths.vault, handle, read, keyring, journals, {
          path: paths.acknowledged,
          sequence: acknowledged,
        });
      } catch (err) {
        // A snapshot or a new journal segment may have landed between our opens: read again.
        if (
          err instanceof VaultError &&
          err.code === 'VAULT_CORRUPT' &&
          attempt < 4 &&
          ((await snapshotMoved(handle, paths.vault)) ||
            (await segmentsMoved(journals, paths.journal, paths.previousJournal)))
        ) {
          continue;
        }
        throw err;
      }
      try {
        const term = keyring.activeTerm;
        const header: VaultHeader = {
          ...read.header,
          snapshot: { sequence: state.sequence, term, written_at: clock.now().toISOString() },
        };
        const image = state.sqlite.export();
        try {
          // The audit entries this state has moved out of memory: its segments' committed bytes.
          const records = segmentRecordsOf(state.sqlite);
          await copyCommittedSegments(paths.auditSegments, vaultPaths(options.out).auditSegments, records);
        } catch (err) {
          // A retention rewrite replaced a segment since the state was read: read again.
          if ((err as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 4) continue;
          throw err;
        }
        await writeVaultFile(sodium, options.out, header, keyring.fileKey(term), image);
        const { size } = await stat(options.out);
        return { sequence: state.sequence, bytes: size };
      } finally {
        state.sqlite.close();
      }
    } finally {
      await handle.close();
      if (journals) await closeJournals(journals);
    }
  }
  throw new VaultError('VAULT_LOCKED', 'The vault kept changing its snapshot; try the backup again.');
}

async function snapshotMoved(handle: StorageHandle, path: string): Promise<boolean> {
  try {
    const [held, current] = await Promise.all([handle.stat(), stat(path)]);
    return held.ino !== current.ino;
  } catch {
    return true;
  }
}

/** True when the journal segments on disk are no longer the ones we opened. */
async function segmentsMoved(journals: JournalHandles, journal: string, previous: string): Promise<boolean> {
  const same = async (held: StorageHandle | null, path: string): Promise<boolean> => {
    const now = await stat(path).catch(() => null);
    if (!held || !now) return !held && !now;
    return (await held.stat()).ino === now.ino;
  };
  return !(await same(journals.handle, journal)) || !(await same(journals.previous, previous));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export interface RestoreOptions {
  readonly from: string;
  readonly path: string;
  readonly key: KeySource;
  readonly force?: boolean;
  readonly clock?: Clock;
}

/** Verifies a backup completely (key, every chunk, SQLite integrity), then installs it as the vault. */
export async function restoreVault(options: RestoreOptions): Promise<{ sequence: number }> {
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const paths = vaultPaths(options.path);
  const memo: RootKeyMemo = {};
  const handle = await openVaultFile(options.from);
  let header: VaultHeader;
  try {
    const read = await readHeader(sodium, handle, options.from);
    const keyring = unlockKeyring(sodium, read.header, options.key, memo);
    const image = await readSnapshot(
      sodium,
      handle,
      options.from,
      read,
      keyring.fileKey(read.header.snapshot.term),
    );
    const SQL = await loadSqlJs();
    const sqlite = new SQL.Database(image);
    try {
      const check = sqlite.exec('PRAGMA integrity_check');
      if (check[0]?.values[0]?.[0] !== 'ok')
        throw new VaultError('VAULT_CORRUPT', 'The backup fails SQLite integrity checks.');
    } finally {
      sqlite.close();
    }
    header = read.header;
  } finally {
    await handle.close();
  }
  if (!options.force && (await vaultExists(paths.vault))) {
    throw new VaultError(
      'VAULT_EXISTS',
      `A vault already exists at ${paths.vault}; pass --force to replace it.`,
    );
  }
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const lock = await acquireLock(paths.lock, clock.now());
  try {
    // The old journal and mark belong to the vault being replaced: remove them before the new file
    // lands. A crash before the new ones exist leaves a vault that refuses to open: restore again.
    for (const old of [paths.journal, paths.previousJournal, paths.acknowledged]) {
      await unlink(old).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
    await syncDirectory(paths.dir);
    // The audit segments beside the backup (none: the replaced vault's are removed).
    await installSegments(vaultPaths(options.from).auditSegments, paths.auditSegments);
    await copyAtomically(options.from, paths.vault);
    await createJournalFile(sodium, paths.journal, {
      vaultId: header.vault_id,
      baseSequence: header.snapshot.sequence,
      term: header.snapshot.term,
    });
    await createAcknowledged(
      sodium,
      nodeStorageFs,
      paths.acknowledged,
      header.vault_id,
      header.snapshot.sequence,
    );
  } finally {
    await lock.release();
  }
  return { sequence: header.snapshot.sequence };
}

async function copyAtomically(from: string, to: string): Promise<void> {
  const source = await open(from, 'r');
  try {
    await writeFileAtomically(to, async (target) => {
      const { size } = await source.stat();
      const chunk = Buffer.alloc(4 * 1024 * 1024);
      for (let position = 0; position < size;) {
        const { bytesRead } = await source.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        await writeFully(target, chunk.subarray(0, bytesRead), position);
        position += bytesRead;
      }
    });
  } finally {
    await source.close();
  }
}

export interface RekeyOptions {
  readonly path: string;
  /** Set: the vault is in this PostgreSQL database (`path` is not used). */
  readonly databaseUrl?: string | null;
  readonly key: KeySource;
  readonly newKey: KeySource;
  readonly kdf?: KdfLimits;
  readonly clock?: Clock;
}

/**
 * Changes the root key: the keyring is re-wrapped and the header rewritten in one atomic rename;
 * on a database, the keyring row is re-wrapped in one transaction (rekeyPostgresVault).
 */
export async function rekeyVault(options: RekeyOptions): Promise<void> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== null) {
    const { key, newKey, kdf, clock } = options;
    return rekeyPostgresVault({ url: options.databaseUrl, key, newKey, kdf, clock });
  }
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const paths = vaultPaths(options.path);
  const { lock, memo } = await checkKeyThenLock(sodium, paths, options.key, () => clock.now());
  try {
    const handle = await openVaultFile(paths.vault);
    try {
      const read = await readHeader(sodium, handle, paths.vault);
      const keyring = unlockKeyring(sodium, read.header, options.key, memo);
      const kdf = newKdfHeader(sodium, options.newKey, options.kdf);
      const rootKey = deriveRootKey(sodium, options.newKey, kdf);
      const header: VaultHeader = {
        ...read.header,
        kdf,
        keyring: Buffer.from(keyring.wrap(rootKey, keyringAad(read.header.vault_id, kdf))).toString('base64'),
      };
      await rewriteHeader(sodium, paths.vault, handle, read, header);
    } finally {
      await handle.close();
    }
  } finally {
    await lock.release();
  }
}

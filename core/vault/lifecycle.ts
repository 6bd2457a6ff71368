import { randomUUID } from 'node:crypto';
import { DEFAULT_AUDIT_SEGMENT_LIMITS } from '../audit/segments/limits.ts';
import { VaultError } from '../errors/catalogue.ts';
import { Keyring } from '../crypto/keyring.ts';
import { deriveRootKey, newKdfHeader } from '../crypto/root-key.ts';
import { loadSodium } from '../crypto/sodium.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { AcknowledgedMark, createAcknowledged, readAcknowledged } from '../backends/embedded/acknowledged.ts';
import { JournalWriter, createJournalFile, scanJournal } from '../backends/embedded/journal.ts';
import type { JournalHeader } from '../backends/embedded/journal.ts';
import { acquireLock } from '../backends/embedded/lock.ts';
import type { VaultLock } from '../backends/embedded/lock.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import type { VaultPaths } from '../backends/embedded/paths.ts';
import { applyPragmas } from '../backends/embedded/pragmas.ts';
import {
  DEFAULT_STORAGE_LIMITS,
  assertDiskHeadroom,
  explainDiskFull,
} from '../backends/embedded/space-guard.ts';
import { nodeStorageFs } from '../backends/embedded/storage-fs.ts';
import type { StorageFs } from '../backends/embedded/storage-fs.ts';
import { keyringAad, openVaultFile, readHeader, writeVaultFile } from '../backends/embedded/vault-file.ts';
import type { VaultHeader } from '../backends/embedded/vault-file.ts';
import { systemClock } from './clock.ts';
import { DEFAULT_SNAPSHOT_THRESHOLD, EmbeddedVault } from '../backends/embedded/embedded-vault.ts';
import { checkKeyThenLock } from './key-then-lock.ts';
import { closeJournals, loadState, openJournals, segmentEnd, unlockKeyring } from './load.ts';
import type { LoadTimes } from './load.ts';
import { loadSqlJs } from '../backends/embedded/sqljs.ts';
import type { AdoptedIdentity, CreateVaultOptions, OpenVaultOptions } from './types.ts';

/**
 * Opens an existing vault: checks the key before touching anything, takes the lock, loads the
 * snapshot, replays the journal, checks that no acknowledged commit is missing, cuts a torn tail,
 * runs pending migrations. On any error the lock is released and the vault, journal and mark files
 * are left exactly as they were.
 */
/** The snapshot threshold and the storage and audit-segment limits, defaults filled in. */
function tuningOf(options: OpenVaultOptions) {
  return {
    snapshotThresholdBytes: options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD,
    limits: { ...DEFAULT_STORAGE_LIMITS, ...options.limits },
    auditSegments: { ...DEFAULT_AUDIT_SEGMENT_LIMITS, ...options.auditSegments },
  };
}

export async function openVault(options: OpenVaultOptions): Promise<EmbeddedVault> {
  return openHeld(options).catch((err: unknown) => {
    throw explainDiskFull(err, 'the vault cannot be opened for writing');
  });
}

async function openHeld(options: OpenVaultOptions): Promise<EmbeddedVault> {
  const started = performance.now();
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const fs = options.fs ?? nodeStorageFs;
  const paths = vaultPaths(options.path);

  const { lock, memo } = await checkKeyThenLock(sodium, paths, options.key, () => clock.now(), fs);
  let state: Awaited<ReturnType<typeof loadState>> | undefined;
  let vault: EmbeddedVault | undefined;
  let unlockMs = 0;
  let loadTimes: LoadTimes = { readMs: 0, decryptMs: 0, sqlLoadMs: 0, journalMs: 0 };
  try {
    // Read again under the lock: the holder we waited for may have written a new snapshot.
    const handle = await openVaultFile(paths.vault, fs);
    let read;
    let keyring;
    let acknowledged;
    try {
      read = await readHeader(sodium, handle, paths.vault);
      keyring = unlockKeyring(sodium, read.header, options.key, memo);
      unlockMs = performance.now() - started;
      acknowledged = await readAcknowledged(sodium, fs, paths.acknowledged, read.header.vault_id);
      const journals = await openJournals(fs, paths);
      try {
        state = await loadState(
          sodium,
          paths.vault,
          handle,
          read,
          keyring,
          journals,
          { path: paths.acknowledged, sequence: acknowledged },
          (times) => (loadTimes = times),
        );
      } finally {
        await closeJournals(journals);
      }
    } finally {
      await handle.close();
    }
    // Nothing has been written so far; from here on the files change, so there must be room.
    const limits = { ...DEFAULT_STORAGE_LIMITS, ...options.limits };
    assertDiskHeadroom(await freeBytes(fs, paths.dir), limits, 'the vault cannot be opened for writing');
    const { header } = read;
    const scan = state.scan;
    if (acknowledged === null) {
      await createAcknowledged(sodium, fs, paths.acknowledged, header.vault_id, state.sequence);
    }
    const mark = await AcknowledgedMark.open(sodium, fs, paths.acknowledged, header.vault_id);
    // A previous segment wholly covered by the snapshot is left over from a finished background
    // snapshot; one that is not (a crash while that snapshot was written) is folded into a new
    // snapshot below, once the vault is open.
    let previousSegment = state.previous !== null;
    if (state.previous && segmentEnd(state.previous) <= header.snapshot.sequence) {
      await fs.unlink(paths.previousJournal);
      previousSegment = false;
    }
    let journal: JournalWriter;
    if (!scan || scan.header.baseSequence + scan.entries.length < header.snapshot.sequence) {
      // No journal (in a vault from before the mark) or one wholly older than the snapshot (a crash
      // between writing a snapshot and resetting the journal): start a fresh one after the snapshot.
      journal = await startJournal(sodium, fs, paths, keyring, mark, {
        vaultId: header.vault_id,
        baseSequence: header.snapshot.sequence,
        term: header.snapshot.term,
      });
    } else {
      journal = await JournalWriter.open(
        sodium,
        fs,
        paths.journal,
        scan,
        keyring.fileKey(scan.header.term),
        mark,
      );
    }
    vault = new EmbeddedVault({
      sodium,
      fs,
      sqlite: state.sqlite,
      paths,
      header,
      keyring,
      journal,
      lock,
      clock,
      ...tuningOf(options),
      previousSegment,
    });
    const migrationsStarted = performance.now();
    await vault.migrate();
    await vault.startAudit();
    // A vault from before the mark starts keeping it (and saying so in its header) right away.
    if (header.acknowledged_mark !== true || previousSegment) await vault.compact();
    options.onOpenTimes?.({ unlockMs, ...loadTimes, migrationsMs: performance.now() - migrationsStarted });
    return vault;
  } catch (err) {
    if (vault) await vault.close({ snapshot: false }).catch(() => undefined);
    else {
      state?.sqlite.close();
      await lock.release();
    }
    throw err;
  }
}

async function startJournal(
  sodium: Sodium,
  fs: StorageFs,
  paths: VaultPaths,
  keyring: Keyring,
  mark: AcknowledgedMark,
  header: JournalHeader,
): Promise<JournalWriter> {
  await createJournalFile(sodium, paths.journal, header, fs);
  const fresh = await fs.open(paths.journal, 'r');
  let scan;
  try {
    scan = await scanJournal(sodium, fresh, paths.journal, (t) => keyring.fileKey(t));
  } finally {
    await fresh.close();
  }
  return JournalWriter.open(sodium, fs, paths.journal, scan, keyring.fileKey(header.term), mark);
}

async function freeBytes(fs: StorageFs, dir: string): Promise<number> {
  try {
    return await fs.freeBytes(dir);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

async function exists(fs: StorageFs, path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Creates a new vault (never over an existing one) with the schema migrated, and returns it open. */
export async function createVault(options: CreateVaultOptions): Promise<EmbeddedVault> {
  return createHeld(options).catch((err: unknown) => {
    throw explainDiskFull(err, 'the vault cannot be created');
  });
}

/**
 * Creates a new vault file (never over an existing one) holding an existing vault's identity: its
 * id, creation time, KDF and keyring, wrapped by the root key `options.key` derives under that KDF
 * (the key that opened the source), so the same key opens the file. Empty and migrated, like
 * `createVault`; the caller copies the rows.
 */
export async function createAdoptedVault(
  options: OpenVaultOptions & { readonly identity: AdoptedIdentity },
): Promise<EmbeddedVault> {
  return createHeld(options, options.identity).catch((err: unknown) => {
    throw explainDiskFull(err, 'the vault cannot be created');
  });
}

async function createHeld(options: CreateVaultOptions, identity?: AdoptedIdentity): Promise<EmbeddedVault> {
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const fs = options.fs ?? nodeStorageFs;
  const paths = vaultPaths(options.path);
  if (await exists(fs, paths.vault)) {
    throw new VaultError('VAULT_EXISTS', `A vault already exists at ${paths.vault}; it was left as it is.`);
  }
  await fs.mkdir(paths.dir, 0o700);
  const lock: VaultLock = await acquireLock(paths.lock, clock.now(), fs);
  let vault: EmbeddedVault | undefined;
  try {
    if (await exists(fs, paths.vault)) {
      throw new VaultError('VAULT_EXISTS', `A vault already exists at ${paths.vault}; it was left as it is.`);
    }
    const now = clock.now().toISOString();
    const vaultId = identity?.vaultId ?? randomUUID();
    const kdf = identity?.kdf ?? newKdfHeader(sodium, options.key, options.kdf);
    const rootKey = deriveRootKey(sodium, options.key, kdf);
    const keyring = identity?.keyring ?? Keyring.create(sodium, clock.now());
    const header: VaultHeader = {
      vault_id: vaultId,
      created_at: identity?.createdAt ?? now,
      kdf,
      keyring: Buffer.from(keyring.wrap(rootKey, keyringAad(vaultId, kdf))).toString('base64'),
      terms: keyring.terms,
      snapshot: { sequence: 0, term: keyring.activeTerm, written_at: now },
      acknowledged_mark: true,
    };
    const SQL = await loadSqlJs();
    const sqlite = new SQL.Database();
    applyPragmas(sqlite);
    const fileKey = keyring.fileKey(keyring.activeTerm);
    // The mark and the journal go first: a vault file without them is damaged, the reverse is not a vault.
    await createAcknowledged(sodium, fs, paths.acknowledged, vaultId, 0);
    const mark = await AcknowledgedMark.open(sodium, fs, paths.acknowledged, vaultId);
    const journal = await startJournal(sodium, fs, paths, keyring, mark, {
      vaultId,
      baseSequence: 0,
      term: keyring.activeTerm,
    });
    const written = await writeVaultFile(sodium, paths.vault, header, fileKey, sqlite.export(), fs);
    applyPragmas(sqlite);
    vault = new EmbeddedVault({
      sodium,
      fs,
      sqlite,
      paths,
      header: written,
      keyring,
      journal,
      lock,
      clock,
      ...tuningOf(options),
    });
    await vault.migrate();
    await vault.startAudit();
    // The migrations' records folded into the first snapshot, written here: nothing else has the vault yet.
    await vault.compactHeld();
    return vault;
  } catch (err) {
    if (vault) await vault.close({ snapshot: false }).catch(() => undefined);
    else await lock.release();
    throw err;
  }
}

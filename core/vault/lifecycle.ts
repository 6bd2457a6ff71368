import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { VaultError } from '../errors/catalogue.ts';
import { Keyring } from '../crypto/keyring.ts';
import { deriveRootKey, newKdfHeader } from '../crypto/root-key.ts';
import { loadSodium } from '../crypto/sodium.ts';
import { JournalWriter, createJournalFile, scanJournal } from '../storage/journal.ts';
import { acquireLock } from '../storage/lock.ts';
import type { VaultLock } from '../storage/lock.ts';
import { vaultPaths } from '../storage/paths.ts';
import { applyPragmas } from '../storage/pragmas.ts';
import { keyringAad, openVaultFile, readHeader, writeVaultFile } from '../storage/vault-file.ts';
import type { VaultHeader } from '../storage/vault-file.ts';
import { systemClock } from './clock.ts';
import { DEFAULT_SNAPSHOT_THRESHOLD, EmbeddedVault } from './embedded-vault.ts';
import { loadState, openJournalIfPresent, unlockKeyring } from './load.ts';
import type { RootKeyMemo } from './load.ts';
import { loadSqlJs } from './sqljs.ts';
import { vaultExists } from './status.ts';
import type { CreateVaultOptions, OpenVaultOptions } from './types.ts';

/**
 * Opens an existing vault: checks the key before touching anything, takes the lock, loads the
 * snapshot, replays the journal, cuts a torn tail, runs pending migrations. On any error the lock
 * is released and the vault and journal files are left exactly as they were.
 */
export async function openVault(options: OpenVaultOptions): Promise<EmbeddedVault> {
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const paths = vaultPaths(options.path);

  // The key is checked first, without the lock, so a wrong key leaves no trace on disk.
  const memo: RootKeyMemo = {};
  const probe = await openVaultFile(paths.vault);
  try {
    unlockKeyring(sodium, (await readHeader(sodium, probe, paths.vault)).header, options.key, memo);
  } finally {
    await probe.close();
  }

  const lock = await acquireLock(paths.lock, clock.now());
  let state: Awaited<ReturnType<typeof loadState>> | undefined;
  try {
    // Read again under the lock: the holder we waited for may have written a new snapshot.
    const handle = await openVaultFile(paths.vault);
    const journalHandle = await openJournalIfPresent(paths.journal);
    let read;
    let keyring;
    try {
      read = await readHeader(sodium, handle, paths.vault);
      keyring = unlockKeyring(sodium, read.header, options.key, memo);
      state = await loadState(sodium, paths.vault, handle, read, keyring, paths.journal, journalHandle);
    } finally {
      await handle.close();
      await journalHandle?.close();
    }
    const { header } = read;
    const scan = state.scan;
    let journal: JournalWriter;
    if (!scan || scan.header.baseSequence + scan.entries.length < header.snapshot.sequence) {
      // No journal (or one wholly older than the snapshot): start a fresh one after the snapshot.
      const term = header.snapshot.term;
      await createJournalFile(sodium, paths.journal, {
        vaultId: header.vault_id,
        baseSequence: header.snapshot.sequence,
        term,
      });
      const fresh = await openJournalIfPresent(paths.journal);
      const freshScan = await scanJournal(sodium, fresh!, paths.journal, (t) => keyring.fileKey(t));
      await fresh!.close();
      journal = await JournalWriter.open(sodium, paths.journal, freshScan, keyring.fileKey(term));
    } else {
      journal = await JournalWriter.open(sodium, paths.journal, scan, keyring.fileKey(scan.header.term));
    }
    const vault = new EmbeddedVault({
      sodium,
      sqlite: state.sqlite,
      paths,
      header,
      keyring,
      journal,
      lock,
      clock,
      snapshotThresholdBytes: options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD,
    });
    await vault.migrate();
    return vault;
  } catch (err) {
    state?.sqlite.close();
    await lock.release();
    throw err;
  }
}

/** Creates a new vault (never over an existing one) with the schema migrated, and returns it open. */
export async function createVault(options: CreateVaultOptions): Promise<EmbeddedVault> {
  const sodium = await loadSodium();
  const clock = options.clock ?? systemClock;
  const paths = vaultPaths(options.path);
  if (await vaultExists(paths.vault)) {
    throw new VaultError('VAULT_EXISTS', `A vault already exists at ${paths.vault}; it was left as it is.`);
  }
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const lock: VaultLock = await acquireLock(paths.lock, clock.now());
  try {
    if (await vaultExists(paths.vault)) {
      throw new VaultError('VAULT_EXISTS', `A vault already exists at ${paths.vault}; it was left as it is.`);
    }
    const now = clock.now().toISOString();
    const vaultId = randomUUID();
    const kdf = newKdfHeader(sodium, options.key, options.kdf);
    const rootKey = deriveRootKey(sodium, options.key, kdf);
    const keyring = Keyring.create(sodium, clock.now());
    const header: VaultHeader = {
      vault_id: vaultId,
      created_at: now,
      kdf,
      keyring: Buffer.from(keyring.wrap(rootKey, keyringAad(vaultId, kdf))).toString('base64'),
      terms: keyring.terms,
      snapshot: { sequence: 0, term: keyring.activeTerm, written_at: now },
    };
    const SQL = await loadSqlJs();
    const sqlite = new SQL.Database();
    applyPragmas(sqlite);
    const fileKey = keyring.fileKey(keyring.activeTerm);
    // The journal goes first: a vault file without a journal is valid, the reverse is not.
    await createJournalFile(sodium, paths.journal, { vaultId, baseSequence: 0, term: keyring.activeTerm });
    await writeVaultFile(sodium, paths.vault, header, fileKey, sqlite.export());
    applyPragmas(sqlite);
    const journalHandle = await openJournalIfPresent(paths.journal);
    const scan = await scanJournal(sodium, journalHandle!, paths.journal, (t) => keyring.fileKey(t));
    await journalHandle!.close();
    const journal = await JournalWriter.open(sodium, paths.journal, scan, fileKey);
    const vault = new EmbeddedVault({
      sodium,
      sqlite,
      paths,
      header,
      keyring,
      journal,
      lock,
      clock,
      snapshotThresholdBytes: options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD,
    });
    await vault.migrate();
    await vault.compact();
    return vault;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

import { randomBytes } from 'node:crypto';
import { copyFile, cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeStorageFs } from '../backends/embedded/storage-fs.ts';
import type { StorageFs } from '../backends/embedded/storage-fs.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { createVault, openVault } from '../vault/index.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Clock } from '../vault/clock.ts';
import type { KeySource } from '../crypto/root-key.ts';
import type { AuditSegmentLimits } from '../audit/segments/limits.ts';
import { unsyncedFs } from './unsynced-fs.ts';

/** A temp folder for one test's vault, removed by `cleanup`. */
export interface TempDir {
  readonly dir: string;
  readonly vaultPath: string;
  readonly key: KeySource;
  cleanup(): Promise<void>;
}

export async function makeTempDir(prefix = 'svc-test-', parent = tmpdir()): Promise<TempDir> {
  const dir = await mkdtemp(join(parent, prefix));
  return {
    dir,
    vaultPath: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface TempVault {
  readonly vault: VaultHandle;
  readonly dir: string;
  readonly vaultPath: string;
  readonly key: KeySource;
  /** Closes the vault (if still open, without writing a snapshot) and removes its directory. */
  dispose(): Promise<void>;
}

export interface TempVaultOptions {
  /** The vault's clock (a ManualClock to move time by hand). Default: the system clock. */
  readonly clock?: Clock;
  /** Wait for fsync on every commit, as production does. Default false: see unsynced-fs.ts. */
  readonly durable?: boolean;
  /** The file layer, for tests that inject faults (replaces the choice `durable` makes). */
  readonly fs?: StorageFs;
  /** Limits of the audit log's segment files (small ones spill a few hundred entries). */
  readonly auditSegments?: Partial<AuditSegmentLimits>;
}

/** The options of createVault and openVault that TempVaultOptions set. */
function vaultOptions(options: TempVaultOptions) {
  return {
    fs: options.fs ?? (options.durable === true ? nodeStorageFs : unsyncedFs),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.auditSegments === undefined ? {} : { auditSegments: options.auditSegments }),
  };
}

/**
 * A real vault in a fresh temp folder, unlocked with a random raw key (no KDF, so it is quick), and
 * without fsync unless `durable` is set: the one temp vault of the tests that are not about storage.
 */
export async function createTempVault(options: TempVaultOptions = {}): Promise<TempVault> {
  const tmp = await makeTempDir();
  let vault: VaultHandle;
  try {
    vault = await createVault({ path: tmp.vaultPath, key: tmp.key, ...vaultOptions(options) });
  } catch (error) {
    await tmp.cleanup();
    throw error;
  }
  return tempVaultIn(tmp, vault);
}

/**
 * A real vault in a fresh temp folder opened from a copy of the files of `closed` (a closed
 * TempVault, or one with no commits in flight): the same rows, keys and vault id, without
 * creating, migrating and filling a vault again. Without fsync unless `durable` is set.
 */
export async function copyTempVault(closed: TempVault, options: TempVaultOptions = {}): Promise<TempVault> {
  const tmp = await makeTempDir();
  const copy: TempDir = { ...tmp, key: closed.key };
  let vault: VaultHandle;
  try {
    const from = vaultPaths(closed.vaultPath);
    const to = vaultPaths(copy.vaultPath);
    // The lock is the copy's own; the previous journal segment exists only mid-snapshot.
    await copyFile(from.vault, to.vault);
    await copyFile(from.journal, to.journal);
    await copyFile(from.acknowledged, to.acknowledged);
    await cp(from.auditSegments, to.auditSegments, { recursive: true }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
    vault = await openVault({ path: copy.vaultPath, key: copy.key, ...vaultOptions(options) });
  } catch (error) {
    await copy.cleanup();
    throw error;
  }
  return tempVaultIn(copy, vault);
}

/**
 * The TempVault of `vault` opened with `tmp`'s key: dispose closes it, then releases what
 * `release` names (a database schema, say) and removes the folder, whatever failed before.
 */
export function tempVaultIn(
  tmp: TempDir,
  vault: VaultHandle,
  release: () => Promise<void> = async () => undefined,
): TempVault {
  return {
    vault,
    dir: tmp.dir,
    vaultPath: tmp.vaultPath,
    key: tmp.key,
    async dispose() {
      try {
        // The folder is removed next: a snapshot of what the test committed would be written for nothing.
        await vault.close({ snapshot: false });
      } finally {
        try {
          await release();
        } finally {
          await tmp.cleanup();
        }
      }
    },
  };
}

/**
 * Every file in the folder with its bytes (as base64: the same bytes, but compared as one string;
 * `toEqual` walks a Buffer element by element, most of a second for a vault file), to prove that
 * a failed operation changed nothing.
 */
export async function snapshotFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) {
    files.set(name, (await readFile(join(dir, name))).toString('base64'));
  }
  return files;
}

/**
 * libsodium's smallest Argon2id limits (one pass, 8 KiB) so password and passphrase tests stay
 * fast: a small fraction of a hash at one pass and 8 MiB (`bench/password-kdf.ts` measures both),
 * and the suite hashes about a thousand passwords. The same code runs; production uses INTERACTIVE
 * (passwords) and MODERATE (vault keys).
 */
export const FAST_KDF = { opsLimit: 1, memLimit: 8 * 1024 };

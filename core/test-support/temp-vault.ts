import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeySource } from '../vault/types.ts';

/** A temp folder for one test's vault, removed by `cleanup`. */
export interface TempDir {
  readonly dir: string;
  readonly vaultPath: string;
  readonly key: KeySource;
  cleanup(): Promise<void>;
}

export async function makeTempDir(prefix = 'svc-test-'): Promise<TempDir> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    dir,
    vaultPath: join(dir, 'vault.svc'),
    key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Every file in the folder with its bytes, to prove that a failed operation changed nothing. */
export async function snapshotFiles(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const name of (await readdir(dir)).sort()) files.set(name, await readFile(join(dir, name)));
  return files;
}

/** Small Argon2id limits so passphrase tests stay fast; production uses MODERATE. */
export const FAST_KDF = { opsLimit: 1, memLimit: 8 * 1024 * 1024 };

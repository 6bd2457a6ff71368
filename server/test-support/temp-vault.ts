import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVault } from '../../core/vault/index.ts';
import type { Clock, VaultHandle } from '../../core/vault/types.ts';

export interface TempVault {
  readonly vault: VaultHandle;
  readonly dir: string;
  /** Closes the vault (if still open) and removes its directory. */
  dispose(): Promise<void>;
}

export interface TempVaultOptions {
  /** The vault's clock (a ManualClock to move time by hand). Default: the system clock. */
  readonly clock?: Clock;
}

/** A real vault in a fresh temp dir, unlocked with a random raw key (no KDF, so it is quick). */
export async function createTempVault(options: TempVaultOptions = {}): Promise<TempVault> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-server-test-'));
  const vault = await createVault({
    path: join(dir, 'vault.svc'),
    key: { kind: 'key', key: randomBytes(32) },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return {
    vault,
    dir,
    async dispose() {
      try {
        await vault.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

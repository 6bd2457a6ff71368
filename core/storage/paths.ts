import { basename, dirname, join } from 'node:path';

/**
 * The files of one vault: `vault.svc` (header + snapshot), `vault.journal`, `vault.ack` (the last
 * acknowledged commit), `vault.lock`.
 */
export interface VaultPaths {
  readonly vault: string;
  readonly journal: string;
  readonly acknowledged: string;
  readonly lock: string;
  readonly dir: string;
}

export function vaultPaths(vaultPath: string): VaultPaths {
  const dir = dirname(vaultPath);
  const name = basename(vaultPath);
  const stem = name.endsWith('.svc') ? name.slice(0, -'.svc'.length) : name;
  return {
    vault: vaultPath,
    journal: join(dir, `${stem}.journal`),
    acknowledged: join(dir, `${stem}.ack`),
    lock: join(dir, `${stem}.lock`),
    dir,
  };
}

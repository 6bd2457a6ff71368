import type { ResolvedConfig } from '../../core/config/index.ts';
import { clientOf, connectionFor } from '../connection/connection.ts';
import { requireEmbedded, storedVaultStatus } from '../local-vault/location.ts';
import { keyForVault, withVault } from '../local-vault/open.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { httpVaultUpkeep } from './http/index.ts';
import type { CliKeyFlags } from '../options/config-flags.ts';
import type { VaultUpkeep } from './contract.ts';

/**
 * Vault upkeep wherever the vault is: through the server holding it (its operator routes), else in
 * this process with the vault's key (a backup reads the files without taking the lock).
 */
export async function vaultUpkeep(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: CliKeyFlags,
): Promise<VaultUpkeep> {
  const connection = await connectionFor(deps, resolved, flags.apiKey);
  if (connection.kind !== 'in-process') return httpVaultUpkeep(clientOf(connection));
  return {
    status: () => storedVaultStatus(deps, resolved),
    compact: () => {
      requireEmbedded(
        resolved,
        'svc vault compact',
        'PostgreSQL reclaims space by itself (autovacuum); run VACUUM there if you must.',
      );
      return withVault(deps, resolved, flags, async (vault) => {
        await vault.compact();
        return vault.status();
      });
    },
    async backup(file, force) {
      requireEmbedded(
        resolved,
        'svc vault backup',
        "back the database up with PostgreSQL's own tools (pg_dump, or continuous archiving).",
      );
      const { key } = await keyForVault(deps, resolved, flags);
      return deps.vault.backupVault({
        path: resolved.config.vaultPath,
        key,
        out: file,
        force,
        clock: deps.clock,
      });
    },
  };
}

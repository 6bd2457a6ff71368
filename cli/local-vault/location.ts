import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../../core/config/index.ts';
import { VaultError } from '../../core/errors/catalogue.ts';
import { describeVaultLocation, vaultLocationOf, type VaultLocation } from '../../core/vault/location.ts';
import type { VaultStatus } from '../../core/vault/status-schema.ts';
import type { CliDeps } from '../runtime/deps.ts';

/** Where the configured vault lives: the file at `vaultPath`, or the database of `databaseUrl`. */
export function vaultLocation(resolved: ResolvedConfig): VaultLocation {
  return vaultLocationOf(resolved.config);
}

/** The vault's place as it may be printed: the file's path, or the database URL without its password. */
export function vaultWhere(resolved: ResolvedConfig): string {
  return describeVaultLocation(vaultLocation(resolved));
}

/** The vault's status without its key (header or keyring row); VAULT_NOT_FOUND when there is none. */
export async function storedVaultStatus(deps: CliDeps, resolved: ResolvedConfig): Promise<VaultStatus> {
  const location = vaultLocation(resolved);
  if (location.backend === 'embedded') {
    await requireVault(deps, resolved);
    return deps.vault.readVaultStatus(location.path);
  }
  const status = await deps.vault.vaultStatusAt(location);
  if (status === null) {
    throw new VaultError(
      'VAULT_NOT_FOUND',
      `no vault in ${describeVaultLocation(location)} (set one up with 'svc init --database …' or 'svc start --database …')`,
    );
  }
  return status;
}

export async function requireVault(deps: CliDeps, resolved: ResolvedConfig): Promise<void> {
  const location = vaultLocation(resolved);
  if (location.backend === 'postgres') {
    await storedVaultStatus(deps, resolved);
    return;
  }
  if (!(await deps.vault.vaultExists(location.path))) {
    throw new VaultError(
      'VAULT_NOT_FOUND',
      `no vault at ${location.path} (create one with 'svc init' or 'svc start')`,
    );
  }
}

/**
 * For the commands that work on the vault file itself (backup, restore, compact, import into it):
 * a usage error (exit 2) naming what to use instead when the vault is on PostgreSQL.
 */
export function requireEmbedded(resolved: ResolvedConfig, action: string, instead: string): void {
  const location = vaultLocation(resolved);
  if (location.backend === 'embedded') return;
  throw new VaultError(
    'USAGE',
    `${action} works on the embedded vault file, but this vault is in the database ${describeVaultLocation(location)}; ${instead}`,
  );
}

/** The folder of a vault or key file: private to the user, as it holds key material. */
export async function ensurePrivateDir(filePath: string): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
}

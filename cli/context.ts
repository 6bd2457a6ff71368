import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  enforcePermissions,
  exposedSecretFiles,
  resolveConfig,
  resolveKeySourceWithOrigin,
  type ConfigFlags,
  type KeySourceFlags,
  type ResolvedConfig,
  type ResolvedKeySource,
} from '../core/config/index.ts';
import { VaultError, isVaultError } from '../core/errors/catalogue.ts';
import { describeVaultLocation, vaultLocationOf, type VaultLocation } from '../core/vault/location.ts';
import type { KeySource, VaultHandle, VaultStatus } from '../core/vault/types.ts';
import { secretInput, type CliDeps } from './deps.ts';
import { colours, writeLine } from './output.ts';
import { PROMPT_TRIES } from './prompter.ts';

/** The configuration as this process sees it: flags, then the injected env, then the file, then defaults. */
export function loadConfig(deps: CliDeps, flags: ConfigFlags): Promise<ResolvedConfig> {
  return resolveConfig({ flags, env: deps.env, cwd: deps.cwd });
}

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

/**
 * The key for the existing vault of the configuration. The vault (file header or keyring row) says
 * which kind of key it takes, so a stale default key file never pre-empts the passphrase prompt of
 * a passphrase vault.
 */
export async function keyForVault(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
): Promise<ResolvedKeySource> {
  const status = await storedVaultStatus(deps, resolved);
  const source = await resolveKeySourceWithOrigin(resolved, flags, deps.env, secretInput(deps), {
    expectedKind: status.keySource,
  });
  await checkSecretFilePermissions(deps, resolved, source.keyFile ?? null);
  return source;
}

/**
 * Refuses a key file others can read (unless --allow-insecure-permissions) and warns on stderr about
 * a home folder or a config file with secrets that others can read. Runs before the vault opens.
 */
export async function checkSecretFilePermissions(
  deps: CliDeps,
  resolved: ResolvedConfig,
  keyFile: string | null,
): Promise<void> {
  const warnings = enforcePermissions(
    await exposedSecretFiles(resolved, keyFile),
    resolved.config.allowInsecurePermissions,
  );
  const { yellow } = colours(deps, deps.stderr);
  for (const warning of warnings) writeLine(deps.stderr, `${yellow('warning:')} ${warning}`);
}

/** The one way the CLI opens the vault: the backend is the configuration's (file or database). */
export function openWithKey(deps: CliDeps, resolved: ResolvedConfig, key: KeySource): Promise<VaultHandle> {
  return deps.vault.openVaultAt(vaultLocation(resolved), {
    key,
    snapshotThresholdBytes: resolved.config.snapshotThresholdBytes,
    clock: deps.clock,
  });
}

export async function openExistingVault(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
): Promise<VaultHandle> {
  for (let attempt = 1; ; attempt += 1) {
    const { key, origin } = await keyForVault(deps, resolved, flags);
    try {
      return await openWithKey(deps, resolved, key);
    } catch (error) {
      // A mistyped passphrase at the prompt costs a retype, not the command; a wrong key from a
      // flag, a file or the environment fails at once (asking again would change nothing).
      if (!isVaultError(error, 'VAULT_WRONG_KEY') || origin !== 'prompt' || attempt >= PROMPT_TRIES)
        throw error;
      writeLine(deps.stderr, 'That passphrase does not unlock this vault; try again.');
    }
  }
}

/** Opens the vault, runs `fn`, and always closes it (snapshot + lock release), even when `fn` throws. */
export async function withVault<T>(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
  fn: (vault: VaultHandle) => Promise<T>,
): Promise<T> {
  const vault = await openExistingVault(deps, resolved, flags);
  let result: T;
  try {
    result = await fn(vault);
  } catch (error) {
    // The command's error is the one worth reporting; a failing close must not replace it.
    await vault.close().catch(() => undefined);
    throw error;
  }
  await vault.close();
  return result;
}

/** The folder of a vault or key file: private to the user, as it holds key material. */
export async function ensurePrivateDir(filePath: string): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
}

import {
  enforcePermissions,
  exposedSecretFiles,
  resolveKeySourceWithOrigin,
  type KeySourceFlags,
  type ResolvedConfig,
  type ResolvedKeySource,
} from '../../core/config/index.ts';
import { isVaultError } from '../../core/errors/catalogue.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { KeySource } from '../../core/crypto/root-key.ts';
import { secretInput, type CliDeps } from '../runtime/deps.ts';
import { colours, writeLine } from '../output/write.ts';
import { PROMPT_TRIES } from '../prompts/prompter.ts';
import { storedVaultStatus, vaultLocation } from './location.ts';

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
    expectedKind: status.key_source,
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

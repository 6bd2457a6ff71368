import {
  SECRET_ENV,
  envValue,
  keyFromEnv,
  loadOrCreateKeyFile,
  resolveNewPassphrase,
  type KeySourceFlags,
  type ResolvedConfig,
} from '../../core/config/index.ts';
import type { KeySource } from '../../core/crypto/root-key.ts';
import { retryOnMismatch } from '../prompts/ask.ts';
import { ensurePrivateDir } from './location.ts';
import { secretInput, type CliDeps } from '../runtime/deps.ts';

export interface NewVaultKey {
  readonly key: KeySource;
  /** Set when the vault is unlocked by a key file. */
  readonly keyFile: string | null;
  /** True when the key file was generated just now. */
  readonly keyFileCreated: boolean;
}

/**
 * The key for a vault about to be created. Same precedence as for opening — flags
 * (`--passphrase[-stdin]`, `--key-file`) > env (SVC_VAULT_KEY, SVC_VAULT_PASSPHRASE) — and, with
 * nothing given, the embedded default: a key file at the configured path, generated if missing.
 * An existing key file is reused, never overwritten.
 */
export async function chooseNewVaultKey(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
): Promise<NewVaultKey> {
  const input = secretInput(deps);
  const passphraseEnv = SECRET_ENV.passphrase;
  if (flags.passphrase === true || flags.passphraseStdin === true) {
    const key = await retryOnMismatch(deps, () =>
      resolveNewPassphrase({
        env: deps.env,
        envName: passphraseEnv,
        input,
        fromStdin: flags.passphraseStdin === true,
      }),
    );
    return { key, keyFile: null, keyFileCreated: false };
  }
  if (resolved.sources.keyFile !== 'flag') {
    const fromEnv = keyFromEnv(deps.env);
    if (fromEnv !== undefined) return { key: fromEnv, keyFile: null, keyFileCreated: false };
    if (envValue(deps.env, passphraseEnv) !== undefined) {
      const key = await resolveNewPassphrase({ env: deps.env, envName: passphraseEnv, input });
      return { key, keyFile: null, keyFileCreated: false };
    }
  }
  const { keyFile } = resolved.config;
  await ensurePrivateDir(keyFile);
  const { key, created } = await loadOrCreateKeyFile(keyFile);
  return { key, keyFile, keyFileCreated: created };
}

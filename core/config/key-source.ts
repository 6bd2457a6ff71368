import { access } from 'node:fs/promises';
import { generateKeyFile, parseBase64Key, readKeyFile } from '../crypto/root-key.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { KeySource } from '../crypto/root-key.ts';
import { envValue, type Env, type ResolvedConfig } from './resolve.ts';

/** Environment variables that carry secrets. They are read here and nowhere else, and never printed. */
export const SECRET_ENV = {
  vaultKey: 'SVC_VAULT_KEY',
  passphrase: 'SVC_VAULT_PASSPHRASE',
  newPassphrase: 'SVC_NEW_VAULT_PASSPHRASE',
} as const;

/** New passphrases shorter than this are refused: Argon2id slows guessing, it cannot save "1234". */
export const MIN_PASSPHRASE_LENGTH = 8;

/**
 * How secrets reach us from a person. core cannot depend on a prompt library, so the CLI (or the
 * desktop app) supplies this.
 */
export interface SecretInput {
  /** True when a person can answer a prompt (stdin and the prompt's output are terminals). */
  readonly interactive: boolean;
  /** Asks for a hidden value. `validate` returns an error message, or undefined when the value is fine. */
  promptSecret(message: string, validate?: (value: string) => string | undefined): Promise<string>;
  /** All of standard input (for `--passphrase-stdin`). */
  readStdin(): Promise<string>;
}

export interface KeySourceFlags {
  /** `--passphrase`: unlock with a passphrase, from SVC_VAULT_PASSPHRASE or else a hidden prompt. */
  readonly passphrase?: boolean;
  /** `--passphrase-stdin`: read the passphrase from standard input (scripts, pipes). */
  readonly passphraseStdin?: boolean;
}

export type KeyKind = KeySource['kind'];

export interface KeySourceOptions {
  /**
   * The kind of key the vault was created with (from its header, `readVaultStatus`). With it, a
   * source that cannot possibly work is reported before any prompt or KDF run, and a default key file
   * does not shadow the passphrase prompt of a passphrase vault.
   */
  readonly expectedKind?: KeyKind;
}

export interface ResolvedKeySource {
  readonly key: KeySource;
  /** Where the key came from, for messages ("key file /x/vault.key", "SVC_VAULT_KEY", "prompt"). Never the key. */
  readonly origin: string;
  /** The key file it was read from, if any. */
  readonly keyFile?: string;
}

/** The secret-free answer to "where would the key come from?", for `svc config`. */
export function describeSecretEnv(env: Env): Record<keyof typeof SECRET_ENV, string> {
  const show = (name: string): string =>
    envValue(env, name) === undefined ? '(not set)' : `(set via ${name})`;
  return {
    vaultKey: show(SECRET_ENV.vaultKey),
    passphrase: show(SECRET_ENV.passphrase),
    newPassphrase: show(SECRET_ENV.newPassphrase),
  };
}

/**
 * Finds the key that unlocks an existing vault. Precedence: flags (`--passphrase-stdin`,
 * `--passphrase`, `--key-file`) > environment (SVC_VAULT_KEY, SVC_VAULT_PASSPHRASE) > the configured
 * key file if it exists > a hidden passphrase prompt when interactive. Otherwise VAULT_KEY_REQUIRED.
 */
export async function resolveKeySource(
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
  env: Env,
  input: SecretInput,
  options: KeySourceOptions = {},
): Promise<KeySource> {
  return (await resolveKeySourceWithOrigin(resolved, flags, env, input, options)).key;
}

export async function resolveKeySourceWithOrigin(
  resolved: ResolvedConfig,
  flags: KeySourceFlags,
  env: Env,
  input: SecretInput,
  options: KeySourceOptions = {},
): Promise<ResolvedKeySource> {
  const expected = options.expectedKind;
  const { keyFile } = resolved.config;
  const mustBe = (kind: KeyKind, origin: string): void => {
    if (expected !== undefined && expected !== kind) throw kindMismatch(expected, origin);
  };

  if (flags.passphraseStdin === true && flags.passphrase === true) {
    throw new VaultError('USAGE', 'use either --passphrase or --passphrase-stdin, not both');
  }
  if (flags.passphraseStdin === true) {
    mustBe('passphrase', '--passphrase-stdin');
    return { key: passphrase(await readStdinPassphrase(input)), origin: 'standard input' };
  }
  if (flags.passphrase === true) {
    mustBe('passphrase', '--passphrase');
    const fromEnv = envValue(env, SECRET_ENV.passphrase);
    if (fromEnv !== undefined) return { key: passphrase(fromEnv), origin: SECRET_ENV.passphrase };
    if (!input.interactive) {
      throw new VaultError(
        'VAULT_KEY_REQUIRED',
        `--passphrase needs a terminal to prompt; set ${SECRET_ENV.passphrase} or use --passphrase-stdin`,
      );
    }
    return { key: passphrase(await promptExisting(input)), origin: 'prompt' };
  }
  if (resolved.sources.keyFile === 'flag') {
    mustBe('key', '--key-file');
    return { key: { kind: 'key', key: await loadKeyFile(keyFile) }, origin: `key file ${keyFile}`, keyFile };
  }

  const envKey = envValue(env, SECRET_ENV.vaultKey);
  const envPassphrase = envValue(env, SECRET_ENV.passphrase);
  // With both set, the vault's own kind breaks the tie; without a hint the raw key wins.
  const preferPassphrase = envPassphrase !== undefined && (envKey === undefined || expected === 'passphrase');
  if (preferPassphrase) {
    mustBe('passphrase', SECRET_ENV.passphrase);
    return { key: passphrase(envPassphrase), origin: SECRET_ENV.passphrase };
  }
  if (envKey !== undefined) {
    mustBe('key', SECRET_ENV.vaultKey);
    return { key: { kind: 'key', key: parseEnvKey(envKey) }, origin: SECRET_ENV.vaultKey };
  }

  if (expected !== 'passphrase' && (await exists(keyFile))) {
    return { key: { kind: 'key', key: await loadKeyFile(keyFile) }, origin: `key file ${keyFile}`, keyFile };
  }
  if (input.interactive && expected !== 'key') {
    return { key: passphrase(await promptExisting(input)), origin: 'prompt' };
  }
  throw new VaultError('VAULT_KEY_REQUIRED', missingKeyMessage(keyFile, expected));
}

function missingKeyMessage(keyFile: string, expected: KeyKind | undefined): string {
  if (expected === 'key') {
    return `this vault is unlocked by a key: no key file at ${keyFile}; pass --key-file PATH or set ${SECRET_ENV.vaultKey}`;
  }
  if (expected === 'passphrase') {
    return `this vault is unlocked by a passphrase: set ${SECRET_ENV.passphrase} or use --passphrase-stdin`;
  }
  return (
    `no key or passphrase: no key file at ${keyFile}; pass --key-file PATH, set ${SECRET_ENV.vaultKey} ` +
    `or ${SECRET_ENV.passphrase}, or use --passphrase-stdin`
  );
}

/** The raw key in SVC_VAULT_KEY, when set (used by `svc init` and `svc start` for a new vault). */
export function keyFromEnv(env: Env): KeySource | undefined {
  const text = envValue(env, SECRET_ENV.vaultKey);
  return text === undefined ? undefined : { kind: 'key', key: parseEnvKey(text) };
}

function kindMismatch(expected: KeyKind, origin: string): VaultError {
  const what = expected === 'key' ? 'a key (key file or SVC_VAULT_KEY)' : 'a passphrase';
  return new VaultError(
    'VAULT_KEY_REQUIRED',
    `this vault is unlocked by ${what}; ${origin} cannot unlock it`,
  );
}

function passphrase(value: string): KeySource {
  return { kind: 'passphrase', passphrase: value };
}

function parseEnvKey(text: string): Uint8Array {
  try {
    return parseBase64Key(text);
  } catch (error) {
    // The parser's message might echo part of the input; this one never does.
    throw new VaultError('VAULT_KEY_REQUIRED', `${SECRET_ENV.vaultKey} is not a base64-encoded 32-byte key`, {
      cause: error,
    });
  }
}

async function loadKeyFile(path: string): Promise<Uint8Array> {
  if (!(await exists(path))) throw new VaultError('VAULT_KEY_REQUIRED', `key file ${path} not found`);
  return readKeyFile(path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function promptExisting(input: SecretInput): Promise<string> {
  return input.promptSecret('Vault passphrase:', (value) =>
    value === '' ? 'Enter the passphrase.' : undefined,
  );
}

/** Strips the one line break `echo` or a here-string adds; everything else is part of the passphrase. */
async function readStdinPassphrase(input: SecretInput): Promise<string> {
  const text = (await input.readStdin()).replace(/\r?\n$/, '');
  if (text === '') throw new VaultError('VAULT_KEY_REQUIRED', 'no passphrase on standard input');
  return text;
}

function checkNewPassphrase(value: string): string | undefined {
  return value.length < MIN_PASSPHRASE_LENGTH
    ? `A passphrase needs at least ${MIN_PASSPHRASE_LENGTH} characters.`
    : undefined;
}

export interface NewPassphraseOptions {
  readonly env: Env;
  /** The variable that may carry the new passphrase: SVC_VAULT_PASSPHRASE (init) or SVC_NEW_VAULT_PASSPHRASE (rekey). */
  readonly envName: string;
  readonly input: SecretInput;
  readonly fromStdin?: boolean;
}

/**
 * A passphrase for a new vault or a rekey: standard input when asked, else the environment variable,
 * else typed twice at a hidden prompt. Refuses short ones wherever they come from.
 */
export async function resolveNewPassphrase(options: NewPassphraseOptions): Promise<KeySource> {
  const { env, envName, input } = options;
  let value: string;
  if (options.fromStdin === true) {
    value = await readStdinPassphrase(input);
  } else {
    const fromEnv = envValue(env, envName);
    if (fromEnv !== undefined) {
      value = fromEnv;
    } else if (input.interactive) {
      value = await input.promptSecret('New vault passphrase:', checkNewPassphrase);
      const again = await input.promptSecret('Repeat the passphrase:');
      if (again !== value) throw new VaultError('USAGE', 'the passphrases do not match');
    } else {
      throw new VaultError(
        'VAULT_KEY_REQUIRED',
        `a new passphrase needs a terminal to prompt; set ${envName} or use --passphrase-stdin`,
      );
    }
  }
  const problem = checkNewPassphrase(value);
  if (problem !== undefined) throw new VaultError('USAGE', problem);
  return passphrase(value);
}

/**
 * The key in `path`, generating the file (32 random bytes, mode 0600) when it does not exist yet.
 * An existing file is used, never replaced: it may be the only key to older backups.
 */
export async function loadOrCreateKeyFile(path: string): Promise<{ key: KeySource; created: boolean }> {
  if (await exists(path)) return { key: { kind: 'key', key: await readKeyFile(path) }, created: false };
  return { key: { kind: 'key', key: await generateKeyFile(path) }, created: true };
}

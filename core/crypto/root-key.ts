import { randomBytes } from 'node:crypto';
import { open as openFile, readFile } from 'node:fs/promises';
import { VaultError } from '../errors/catalogue.ts';
import { KEY_BYTES } from './aead.ts';
import type { Sodium } from './sodium.ts';

/** How the root key is supplied. */
export type KeySource =
  | { readonly kind: 'passphrase'; readonly passphrase: string }
  /** 32 raw bytes, from a key file or SVC_VAULT_KEY (base64). */
  | { readonly kind: 'key'; readonly key: Uint8Array };

/** Argon2id cost. Defaults to libsodium's MODERATE; tests may pass INTERACTIVE-sized limits. */
export interface KdfLimits {
  readonly opsLimit: number;
  readonly memLimit: number;
}

/** How the root key was made; stored in the vault header (not secret). */
export type KdfHeader =
  | { readonly kind: 'argon2id'; readonly salt: string; readonly opsLimit: number; readonly memLimit: number }
  | { readonly kind: 'key' };

/** libsodium's MODERATE limits: about a second per unlock, 256 MiB. */
export const DEFAULT_KDF: KdfLimits = { opsLimit: 3, memLimit: 256 * 1024 * 1024 };

export function newKdfHeader(sodium: Sodium, source: KeySource, limits: KdfLimits = DEFAULT_KDF): KdfHeader {
  if (source.kind === 'key') return { kind: 'key' };
  const salt = randomBytes(sodium.crypto_pwhash_SALTBYTES);
  return { kind: 'argon2id', salt: Buffer.from(salt).toString('base64'), ...limits };
}

/** Turns the caller's key source into the 32-byte root key the header's KDF describes. */
export function deriveRootKey(sodium: Sodium, source: KeySource, kdf: KdfHeader): Uint8Array {
  if (kdf.kind === 'key') {
    if (source.kind !== 'key') {
      throw new VaultError(
        'VAULT_WRONG_KEY',
        'This vault is unlocked with a key (key file or SVC_VAULT_KEY), not a passphrase.',
      );
    }
    assertKeyLength(source.key);
    return source.key;
  }
  if (source.kind !== 'passphrase') {
    throw new VaultError('VAULT_WRONG_KEY', 'This vault is unlocked with a passphrase, not a key file.');
  }
  if (source.passphrase.length === 0) throw new VaultError('VAULT_KEY_REQUIRED', 'The passphrase is empty.');
  return sodium.crypto_pwhash(
    KEY_BYTES,
    source.passphrase,
    Buffer.from(kdf.salt, 'base64'),
    kdf.opsLimit,
    kdf.memLimit,
    sodium.crypto_pwhash_ALG_ARGON2ID13,
  );
}

function assertKeyLength(key: Uint8Array): void {
  if (key.length !== KEY_BYTES) {
    throw new VaultError('VAULT_WRONG_KEY', `A vault key is ${KEY_BYTES} bytes; the one given is not.`);
  }
}

/** Parses a base64 key as given in SVC_VAULT_KEY or a key file. */
export function parseBase64Key(text: string): Uint8Array {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new VaultError('VAULT_WRONG_KEY', 'The vault key is not valid base64.');
  }
  const key = new Uint8Array(Buffer.from(trimmed, 'base64'));
  assertKeyLength(key);
  return key;
}

/** Creates a key file of 32 random bytes (base64 text, mode 0600). Never overwrites. */
export async function generateKeyFile(path: string): Promise<Uint8Array> {
  const key = new Uint8Array(randomBytes(KEY_BYTES));
  let handle;
  try {
    handle = await openFile(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new VaultError('VAULT_EXISTS', `A key file already exists at ${path}; it was left as it is.`);
    }
    throw err;
  }
  try {
    await handle.writeFile(`${Buffer.from(key).toString('base64')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return key;
}

/** Reads a key file: base64 text, or exactly 32 raw bytes. */
export async function readKeyFile(path: string): Promise<Uint8Array> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new VaultError('VAULT_KEY_REQUIRED', `No key file at ${path}.`);
    }
    throw err;
  }
  if (bytes.length === KEY_BYTES) return new Uint8Array(bytes);
  return parseBase64Key(bytes.toString('utf8'));
}

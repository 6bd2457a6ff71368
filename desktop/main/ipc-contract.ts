import { isAbsolute } from 'node:path';
import { MIN_PASSPHRASE_LENGTH } from '../../core/config/index.ts';

import { DESKTOP_API, type DesktopApiMethod } from '../bridge/desktop-bridge.ts';

/**
 * The main side of the renderer ↔ main contract. The methods, their channels, requests and answers
 * are one map (desktop/bridge/desktop-bridge.ts) that the preload and the pages read too; here is
 * who may call each and how its argument is parsed. Arguments arrive from a web page, so every
 * handler parses them first and refuses anything else.
 */
export { DESKTOP_API };
export type { DesktopApiMethod, DesktopChannel, DesktopHandlers } from '../bridge/desktop-bridge.ts';

/** Methods callable only from the start screen; the console page may only take its sign-in. */
export const START_SCREEN_METHODS: readonly DesktopApiMethod[] = [
  'listRecentVaults',
  'chooseVaultFile',
  'chooseNewVaultLocation',
  'chooseKeyFile',
  'chooseNewKeyFileLocation',
  'unlockVault',
  'unlockRemembered',
  'createVault',
  'forgetRememberedKey',
  'rememberAvailable',
  'openConsole',
];
export const CONSOLE_METHODS: readonly DesktopApiMethod[] = ['takeConsoleSignIn'];

/** A refused IPC argument: the message names the field, never its value (it may be a secret). */
export class IpcArgumentError extends Error {
  override readonly name = 'IpcArgumentError';
}

export type UnlockSecret =
  | { readonly kind: 'passphrase'; readonly passphrase: string }
  | { readonly kind: 'key-file'; readonly keyFile: string };

export type NewVaultSecret =
  | { readonly kind: 'passphrase'; readonly passphrase: string }
  | { readonly kind: 'new-key-file'; readonly keyFile: string };

export interface UnlockRequest {
  readonly path: string;
  readonly secret: UnlockSecret;
  /** Keep the key in the OS keychain (safeStorage) for next time. Off unless asked. */
  readonly remember: boolean;
}

export interface CreateRequest {
  readonly path: string;
  readonly secret: NewVaultSecret;
  readonly remember: boolean;
}

export interface PathRequest {
  readonly path: string;
}

const PATH_MAX = 4096;
const PASSPHRASE_MAX = 1024;

type Fields = Record<string, unknown>;

function record(value: unknown, name: string, keys: readonly string[]): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new IpcArgumentError(`${name} must be an object`);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null)
    throw new IpcArgumentError(`${name} must be a plain object`);
  for (const key of Object.keys(value)) {
    if (!keys.includes(key))
      throw new IpcArgumentError(`${name} has an unknown field ${JSON.stringify(key)}`);
  }
  return value as Fields;
}

function absolutePath(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > PATH_MAX || value.includes('\0')) {
    throw new IpcArgumentError(`${name} must be a file path`);
  }
  if (!isAbsolute(value)) throw new IpcArgumentError(`${name} must be an absolute path`);
  return value;
}

function passphrase(value: unknown, name: string, minLength: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > PASSPHRASE_MAX) {
    throw new IpcArgumentError(`${name} must be a passphrase of 1 to ${PASSPHRASE_MAX} characters`);
  }
  if (value.length < minLength) {
    throw new IpcArgumentError(`${name} needs at least ${minLength} characters`);
  }
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new IpcArgumentError(`${name} must be true or false`);
  return value;
}

function kindOf(fields: Fields, name: string): unknown {
  if (typeof fields.kind !== 'string') throw new IpcArgumentError(`${name}.kind is required`);
  return fields.kind;
}

export function parseUnlockRequest(value: unknown): UnlockRequest {
  const fields = record(value, 'request', ['path', 'secret', 'remember']);
  const path = absolutePath(fields.path, 'path');
  const secretFields = record(fields.secret, 'secret', ['kind', 'passphrase', 'keyFile']);
  const kind = kindOf(secretFields, 'secret');
  let secret: UnlockSecret;
  if (kind === 'passphrase') {
    if (secretFields.keyFile !== undefined) throw new IpcArgumentError('secret.keyFile is not allowed here');
    secret = { kind, passphrase: passphrase(secretFields.passphrase, 'secret.passphrase', 1) };
  } else if (kind === 'key-file') {
    if (secretFields.passphrase !== undefined)
      throw new IpcArgumentError('secret.passphrase is not allowed here');
    secret = { kind, keyFile: absolutePath(secretFields.keyFile, 'secret.keyFile') };
  } else {
    throw new IpcArgumentError('secret.kind must be "passphrase" or "key-file"');
  }
  return { path, secret, remember: flag(fields.remember, 'remember') };
}

export function parseCreateRequest(value: unknown): CreateRequest {
  const fields = record(value, 'request', ['path', 'secret', 'remember']);
  const path = absolutePath(fields.path, 'path');
  const secretFields = record(fields.secret, 'secret', ['kind', 'passphrase', 'confirmation', 'keyFile']);
  const kind = kindOf(secretFields, 'secret');
  let secret: NewVaultSecret;
  if (kind === 'passphrase') {
    if (secretFields.keyFile !== undefined) throw new IpcArgumentError('secret.keyFile is not allowed here');
    const chosen = passphrase(secretFields.passphrase, 'secret.passphrase', MIN_PASSPHRASE_LENGTH);
    if (secretFields.confirmation !== chosen) {
      throw new IpcArgumentError('secret.confirmation does not match the passphrase');
    }
    secret = { kind, passphrase: chosen };
  } else if (kind === 'new-key-file') {
    if (secretFields.passphrase !== undefined || secretFields.confirmation !== undefined) {
      throw new IpcArgumentError('secret.passphrase is not allowed here');
    }
    secret = { kind, keyFile: absolutePath(secretFields.keyFile, 'secret.keyFile') };
  } else {
    throw new IpcArgumentError('secret.kind must be "passphrase" or "new-key-file"');
  }
  return { path, secret, remember: flag(fields.remember, 'remember') };
}

export function parsePathRequest(value: unknown): PathRequest {
  const fields = record(value, 'request', ['path']);
  return { path: absolutePath(fields.path, 'path') };
}

/** Methods that take no argument refuse one, so a confused caller hears about it. */
export function parseNoArgument(value: unknown): void {
  if (value !== undefined) throw new IpcArgumentError('this call takes no argument');
}

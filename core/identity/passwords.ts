import { randomBytes } from 'node:crypto';
import { loadSodium } from '../crypto/sodium.ts';
import type { KdfLimits } from '../crypto/root-key.ts';
import { COMMON_PASSWORDS_TEXT } from './common-passwords.ts';
import { PasswordWorkers } from './password-workers.ts';

/**
 * libsodium's INTERACTIVE limits (2 passes, 64 MiB): each sign-in costs a deliberate slice of CPU
 * (`bench/password-kdf.ts`), which the throttle keeps from becoming a denial of service. The vault
 * key uses MODERATE instead because it is derived once per open, not once per request.
 */
export const INTERACTIVE_KDF: KdfLimits = { opsLimit: 2, memLimit: 64 * 1024 * 1024 };

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

/**
 * NIST SP 800-63B asks for Unicode normalisation so the same password typed on two keyboards
 * matches; NFKC also folds full-width and compatibility forms.
 */
function normalize(password: string): string {
  return password.normalize('NFKC');
}

/** Length counts code points, so an emoji is one character, not two. */
function lengthOf(password: string): number {
  return [...password].length;
}

/** A password needs this many different characters: refuses `aaaaaaaa` and `abababab`. */
export const PASSWORD_MIN_DISTINCT = 5;

let common: Set<string> | undefined;

/**
 * Whether a password is on the common-password list, ignoring case and trailing digits and
 * punctuation (`Sunshine2024!` is `sunshine`): the first guesses of every attacker.
 */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(COMMON_PASSWORDS_TEXT.split('\n'));
  const lower = normalize(password).toLowerCase();
  const stem = lower.replace(/[\d\p{P}\p{S}\s]+$/u, '');
  return common.has(lower) || common.has(stem);
}

/** Problems with a new password; empty when acceptable. */
export function passwordProblems(password: unknown): string[] {
  if (typeof password !== 'string') return ['must be a string'];
  const length = lengthOf(password);
  if (length < PASSWORD_MIN) return [`must be at least ${PASSWORD_MIN} characters`];
  if (length > PASSWORD_MAX) return [`must be at most ${PASSWORD_MAX} characters`];
  if (new Set(normalize(password).toLowerCase()).size < PASSWORD_MIN_DISTINCT)
    return [`must contain at least ${PASSWORD_MIN_DISTINCT} different characters`];
  if (isCommonPassword(password)) return ['is too common; choose a less predictable password'];
  return [];
}

/** Argon2id runs in worker threads: a hash is far too long to run on the event loop. */
const workers = new PasswordWorkers();

/** Argon2id in libsodium's self-describing string format (salt and limits inside). */
export async function hashPassword(password: string, limits: KdfLimits = INTERACTIVE_KDF): Promise<string> {
  const hash = await workers.run({
    op: 'hash',
    password: normalize(password),
    opsLimit: limits.opsLimit,
    memLimit: limits.memLimit,
  });
  if (typeof hash !== 'string') throw new Error('password hashing returned no hash');
  return hash;
}

/** False for a wrong password and for a malformed stored string (never throws on bad input). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  if (lengthOf(password) > PASSWORD_MAX) return false;
  return (await workers.run({ op: 'verify', stored, password: normalize(password) })) === true;
}

/** Whether a stored hash was made with other limits than the current ones (then re-hash on sign-in). */
export async function needsRehash(stored: string, limits: KdfLimits): Promise<boolean> {
  const sodium = await loadSodium();
  try {
    return sodium.crypto_pwhash_str_needs_rehash(stored, limits.opsLimit, limits.memLimit);
  } catch {
    return true;
  }
}

/**
 * A hash of a random password with the same limits, verified against when the account does not
 * exist or has no password, so that such a failure takes as long as a wrong password.
 */
export class DummyHash {
  private value: Promise<string> | undefined;

  constructor(private readonly limits: KdfLimits) {}

  async burn(password: string): Promise<void> {
    this.value ??= hashPassword(randomBytes(16).toString('hex'), this.limits);
    await verifyPassword(await this.value, password);
  }
}

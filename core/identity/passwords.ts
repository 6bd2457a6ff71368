import { randomBytes } from 'node:crypto';
import { loadSodium } from '../crypto/sodium.ts';
import type { KdfLimits } from '../vault/types.ts';

/**
 * libsodium's INTERACTIVE limits (2 passes, 64 MiB): a sign-in costs ≈ 0.2–0.4 s of CPU here,
 * which the throttle keeps from becoming a denial of service. The vault key uses MODERATE instead
 * because it is derived once per open, not once per request.
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

/** Problems with a new password; empty when acceptable. */
export function passwordProblems(password: unknown): string[] {
  if (typeof password !== 'string') return ['must be a string'];
  const length = lengthOf(password);
  if (length < PASSWORD_MIN) return [`must be at least ${PASSWORD_MIN} characters`];
  if (length > PASSWORD_MAX) return [`must be at most ${PASSWORD_MAX} characters`];
  return [];
}

/** Argon2id in libsodium's self-describing string format (salt and limits inside). */
export async function hashPassword(password: string, limits: KdfLimits = INTERACTIVE_KDF): Promise<string> {
  const sodium = await loadSodium();
  return sodium.crypto_pwhash_str(normalize(password), limits.opsLimit, limits.memLimit);
}

/** False for a wrong password and for a malformed stored string (never throws on bad input). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  if (lengthOf(password) > PASSWORD_MAX) return false;
  const sodium = await loadSodium();
  try {
    return sodium.crypto_pwhash_str_verify(stored, normalize(password));
  } catch {
    return false;
  }
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

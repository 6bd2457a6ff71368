/**
 * The secret of an invitation link: `svci_` + 43 base62 characters from the CSPRNG (≈ 256 bits).
 * Only its keyed hash is stored; the secret itself travels in the mail alone.
 */
import { randomBase62 } from '../crypto/api-key.ts';

const SECRET_CHARS = 43;
const SECRET_PREFIX = 'svci_';
const SECRET = /^svci_[0-9A-Za-z]{43}$/;

export function generateInvitationSecret(): string {
  return SECRET_PREFIX + randomBase62(SECRET_CHARS);
}

/** Whether `text` has the shape of an invitation secret (checked before any lookup). */
export function isInvitationSecret(text: string): boolean {
  return SECRET.test(text);
}

/**
 * The secret from what a person pastes: the secret itself, or the whole accept link
 * (`…?token=<secret>`). Returns the input unchanged when neither shape is recognised.
 */
export function invitationSecretFrom(linkOrSecret: string): string {
  const trimmed = linkOrSecret.trim();
  if (SECRET.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed).searchParams.get('token') ?? trimmed;
  } catch {
    return trimmed;
  }
}

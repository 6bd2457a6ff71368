/**
 * The e-mail address rules of user accounts: how an address is kept (trimmed, lower-cased) and
 * which addresses are accepted. Used by accounts, sign-in, its throttle and invitations.
 */

/** RFC 5321 limits: 64 for the local part, 254 for a usable address. */
const EMAIL_MAX = 254;
const LOCAL_MAX = 64;

// The WHATWG "valid e-mail address" shape (what browsers accept), plus the RFC 5322 rule that the
// dot-atom local part has no leading, trailing or doubled dot. Quoted local parts and address
// literals are refused: no one signs in with them, and each is a parsing risk. A domain without a
// dot (`admin@localhost`) is accepted because the vault usually runs on one machine.
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** E-mails are kept trimmed and lower-cased, so lookups and uniqueness ignore case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function emailProblems(email: unknown): string[] {
  if (typeof email !== 'string' || email.trim() === '') return ['is required'];
  const normalized = normalizeEmail(email);
  if (normalized.length > EMAIL_MAX) return [`must be at most ${EMAIL_MAX} characters`];
  const at = normalized.lastIndexOf('@');
  const local = normalized.slice(0, at);
  const domain = normalized.slice(at + 1);
  if (at < 1 || local.length > LOCAL_MAX || !LOCAL.test(local) || !DOMAIN.test(domain))
    return ['must be a valid e-mail address'];
  return [];
}

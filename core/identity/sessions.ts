import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { randomBase62 } from '../crypto/api-key.ts';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { verifyRow, withRowMac } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';

/** 43 base62 characters ≈ 256 bits, the same strength as the keys that protect the vault. */
const TOKEN_CHARS = 43;
const PREFIX = 'svcs_';
const TOKEN = /^svcs_[0-9A-Za-z]{43}$/;

/** Default session lifetime: a working day. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

type SessionKeys = Pick<VaultHandle, 'keyedHash' | 'clock'> & RowKeys;

export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly expiresAt: string;
}

/** The prefix lets secret scanners recognise a leaked token; the rest is CSPRNG output. */
export function generateSessionToken(): string {
  return PREFIX + randomBase62(TOKEN_CHARS);
}

/** Cheap shape check: anything else is refused before it is hashed or looked up. */
export function looksLikeSessionToken(value: string): boolean {
  return TOKEN.test(value);
}

/** Only this keyed hash is stored: a copy of the database does not yield usable tokens. */
function tokenHash(vault: Pick<VaultHandle, 'keyedHash'>, token: string): Uint8Array {
  return vault.keyedHash('session', token);
}

/**
 * The console's double-submit value for the session of `token` (the SVC-CSRF header): derived from
 * the token under the session lookup key, so nothing more is stored, a page that cannot read the
 * token cannot compute it, and it dies with the session. The input cannot be a session token
 * (those start with `svcs_`), so it never equals a token's stored hash.
 */
export function sessionCsrfToken(vault: Pick<VaultHandle, 'keyedHash'>, token: string): string {
  return Buffer.from(vault.keyedHash('session', `csrf:${token}`)).toString('base64url');
}

function isExpired(expiresAt: string, now: Date): boolean {
  // Both sides are toISOString() output, which sorts as it compares.
  return expiresAt <= now.toISOString();
}

/** Creates a session inside the caller's transaction; the token is returned once and never stored. */
export async function insertSession(
  trx: Kysely<Database>,
  vault: SessionKeys,
  userId: string,
  ttlMs: number,
): Promise<SessionRecord & { token: string }> {
  const now = vault.clock.now();
  const token = generateSessionToken();
  // The MAC binds the token's hash to its user and expiry: a database admin cannot move their own
  // session to another user or keep it alive.
  const record = withRowMac(vault, 'sessions', {
    id: randomUUID(),
    user_id: userId,
    token_hash: tokenHash(vault, token),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
  });
  await trx.insertInto('sessions').values(record).execute();
  return { id: record.id, userId, expiresAt: record.expires_at, token };
}

export type SessionLookup =
  | { readonly state: 'valid'; readonly session: SessionRecord }
  | { readonly state: 'expired'; readonly session: SessionRecord }
  | { readonly state: 'unknown' };

export async function lookupSession(
  db: Kysely<Database>,
  vault: SessionKeys,
  token: string,
): Promise<SessionLookup> {
  if (!looksLikeSessionToken(token)) return { state: 'unknown' };
  const hash = tokenHash(vault, token);
  const row = await db
    .selectFrom('sessions')
    .select(['id', 'user_id', 'token_hash', 'expires_at', 'row_mac'])
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  // The lookup is by hash already; comparing again costs nothing and guards against a lax driver.
  if (!row || !constantTimeEqual(row.token_hash, hash)) return { state: 'unknown' };
  verifyRow(vault, 'sessions', row);
  const session = { id: row.id, userId: row.user_id, expiresAt: row.expires_at };
  return isExpired(row.expires_at, vault.clock.now())
    ? { state: 'expired', session }
    : { state: 'valid', session };
}

export async function deleteSessionById(trx: Kysely<Database>, id: string): Promise<void> {
  await trx.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteUserSessions(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Expired sessions are refused on sight; this keeps a user's stale rows from piling up. */
export async function purgeExpiredSessions(trx: Kysely<Database>, userId: string, now: Date): Promise<void> {
  await trx
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('expires_at', '<=', now.toISOString())
    .execute();
}

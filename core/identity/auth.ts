import { VaultError } from '../errors/catalogue.ts';
import type { AuthService, SignInResult } from './contract.ts';
import { authenticateApiKey } from '../tenancy/applications.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { KdfLimits } from '../crypto/root-key.ts';
import { findMembership, memberPrincipal } from '../tenancy/members.ts';
import { DummyHash, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import {
  deleteSessionById,
  insertSession,
  lookupSession,
  purgeExpiredSessions,
  sessionCsrfToken,
} from './sessions.ts';
import { endConsoleSession } from './console-token-access.ts';
import { throttleKey } from './sign-in-throttle.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';
import { updateAuthenticatedRow, verifyRow } from '../integrity/row-authenticator.ts';
import { emailProblems, normalizeEmail } from './email.ts';
import { findUserRow } from './users.ts';

export interface AuthOptions {
  readonly kdf: KdfLimits;
  readonly sessionTtlMs: number;
  /** Shared with invitation accept, which checks existing accounts' passwords too. */
  readonly throttle: SignInThrottle;
}

/** One message for every failure, so it never tells which of e-mail or password was wrong. */
const SIGN_IN_FAILED = 'The e-mail or password is not correct.';
const SESSION_INVALID = 'The session token is not valid or has expired.';

export function createAuthService(vault: VaultHandle, options: AuthOptions): AuthService {
  const { throttle } = options;
  const dummy = new DummyHash(options.kdf);

  /**
   * The user whose password this is, or null: same work whether or not the account exists. The
   * row's MAC is checked once the password matched, so only whoever knows the password for the
   * stored hash learns that the row was refused (INTEGRITY_FAILED): a hash copied from another user
   * signs nobody in.
   */
  async function verify(email: string, password: string): Promise<{ id: string; hash: string } | null> {
    const row =
      emailProblems(email).length === 0
        ? await vault.db
            .selectFrom('users')
            .select(['id', 'email', 'password_hash', 'row_mac'])
            .where('email', '=', normalizeEmail(email))
            .executeTakeFirst()
        : undefined;
    if (!row || row.password_hash === null) {
      await dummy.burn(password);
      return null;
    }
    if (!(await verifyPassword(row.password_hash, password))) return null;
    verifyRow(vault, 'users', row);
    return { id: row.id, hash: row.password_hash };
  }

  return {
    authenticateApiKey: (apiKey) => authenticateApiKey(vault, apiKey),

    async authenticateSession(token, tenantId) {
      const found =
        typeof token === 'string'
          ? await lookupSession(vault.db, vault, token)
          : { state: 'unknown' as const };
      if (found.state === 'expired') {
        const { id } = found.session;
        await vault.transaction((trx) => deleteSessionById(trx, id));
      }
      if (found.state !== 'valid') throw new VaultError('UNAUTHENTICATED', SESSION_INVALID);
      const { id: sessionId, userId, expiresAt } = found.session;
      if (tenantId === undefined) return { userId, sessionId, expiresAt, principal: null };
      const membership = await findMembership(vault.db, vault, tenantId, userId);
      // Not a member and no such tenant look the same: tenant ids are not revealed.
      if (!membership)
        throw new VaultError('FORBIDDEN', 'The signed-in user is not a member of this tenant.');
      return { userId, sessionId, expiresAt, principal: memberPrincipal(membership, sessionId) };
    },

    async signIn(email, password): Promise<SignInResult> {
      if (typeof email !== 'string' || typeof password !== 'string') {
        throw new VaultError('UNAUTHENTICATED', SIGN_IN_FAILED);
      }
      // Per account, whatever the address: every local caller shares 127.0.0.1.
      const attempt = throttle.begin(throttleKey(email));
      const user = await verify(email, password);
      if (!user) throw new VaultError('UNAUTHENTICATED', SIGN_IN_FAILED);
      attempt.succeeded();
      // Raising the limits later upgrades each stored hash at its owner's next sign-in.
      const rehash = (await needsRehash(user.hash, options.kdf))
        ? await hashPassword(password, options.kdf)
        : null;
      const session = await vault.transaction(async (trx) => {
        const now = vault.clock.now();
        await purgeExpiredSessions(trx, user.id, now);
        if (rehash !== null) {
          // Only while the hash is still the one that matched (a password change meanwhile wins).
          const current = await findUserRow(trx, vault, { id: user.id });
          if (current?.password_hash === user.hash) {
            await updateAuthenticatedRow(trx, vault, 'users', current, { password_hash: rehash });
          }
        }
        return insertSession(trx, vault, user.id, options.sessionTtlMs);
      });
      return { token: session.token, expires_at: session.expiresAt, user_id: user.id };
    },

    async signOut(token) {
      if (typeof token !== 'string') return;
      // Only a known token costs a journal write.
      const found = await lookupSession(vault.db, vault, token);
      if (found.state === 'unknown') return;
      const { id, userId } = found.session;
      await vault.transaction(async (trx) => {
        await deleteSessionById(trx, id);
        // What the console made for this session (its applications) ends with it.
        await endConsoleSession(trx, vault, { userId, sessionId: id });
      });
    },

    csrfToken: (token) => sessionCsrfToken(vault, token),
  };
}

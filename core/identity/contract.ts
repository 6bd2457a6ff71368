/**
 * Users, sign-in and the console's token access, as the HTTP routes and the CLI call them.
 * `Services.auth`, `Services.users` and `Services.consoleTokenAccess` implement it.
 */
import type { Principal } from '../access/principal.ts';
import type { User } from '../common-types.ts';
import type { TokenView } from '../tokens/contract.ts';

export interface SignInResult {
  readonly token: string;
  readonly expires_at: string;
  readonly user_id: string;
}

export interface AuthService {
  /** The application owning this key, as a principal; null for an unknown key (constant-time lookup by keyed hash). */
  authenticateApiKey(apiKey: string): Promise<Principal | null>;
  /**
   * Resolves a session token. Throws UNAUTHENTICATED for an unknown, expired or revoked token.
   * With `tenantId`, returns the member principal; a tenant the user is not a member of (or that
   * does not exist) throws FORBIDDEN, the same for both so existence is not revealed.
   */
  authenticateSession(
    token: string,
    tenantId: string | undefined,
  ): Promise<{ userId: string; sessionId: string; expiresAt: string; principal: Principal | null }>;
  /**
   * Verifies e-mail and password. Failures throw UNAUTHENTICATED with one generic message.
   * Repeated failures of an account, from any address, get growing waits (RATE_LIMITED; the
   * error's detail says when to retry). `address` is not throttled: local callers share 127.0.0.1.
   */
  signIn(email: string, password: string, address: string): Promise<SignInResult>;
  /**
   * Revokes the session of this token (idempotent), and removes what the console made for it (its
   * session applications, core/identity/console-token-access.ts).
   */
  signOut(token: string): Promise<void>;
  /** The console's double-submit value (SVC-CSRF) for the session of this token. */
  csrfToken(token: string): string;
}

export interface UserService {
  create(input: { email: string; password?: string; first_name?: string; last_name?: string }): Promise<User>;
  findByEmail(email: string): Promise<User | null>;
  get(id: string): Promise<User | null>;
  setPassword(userId: string, password: string): Promise<void>;
}

/** What the Tokens screen acts through: the session's own application, a given key, or nothing yet. */
export type ConsoleTokenMode = 'session-application' | 'application' | 'none';

export interface ConsoleTokenAccess {
  readonly mode: ConsoleTokenMode;
  /** The application the screen acts through; null in mode `none`. */
  readonly application: {
    readonly id: string;
    readonly name: string;
    readonly expires_at: string | null;
  } | null;
  /** Whether the member may have the console make a session application in this tenant. */
  readonly session_application_allowed: boolean;
}

export interface ConsoleTokenAccessService {
  status(member: Principal): Promise<ConsoleTokenAccess>;
  /** Makes (or keeps) the session application; forgets a given key. FORBIDDEN beyond the member's grant ceiling. */
  useSessionApplication(member: Principal): Promise<ConsoleTokenAccess>;
  /** Acts as the application of `key` for the rest of the session; removes the session application. */
  useApplicationKey(member: Principal, key: string): Promise<ConsoleTokenAccess>;
  /** Forgets the choice: the session application is removed, a given key forgotten. */
  forget(member: Principal): Promise<ConsoleTokenAccess>;
  /** The principal the console session acts as on token endpoints in the member's tenant, or null. */
  principalFor(member: Principal): Promise<Principal | null>;
  /** One token with its data as the member may see it in clear: one explicit, audited read. */
  reveal(member: Principal, tokenId: string): Promise<TokenView>;
}

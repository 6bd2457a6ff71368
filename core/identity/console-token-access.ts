/**
 * How the console's Tokens screen reads tokens for a signed-in member.
 *
 * Token permissions belong to applications, never to members. A member who may create
 * applications could give themselves token access anyway, so the console spares them the detour:
 * it makes one application for the member's console session in the tenant (its **session
 * application**), with masked token access, never more than the member could grant, expiring with
 * the session and removed at sign-out. Its key is thrown away at creation: nobody can call the API
 * as it; only the console session it was made for acts through it, and the audit log names the
 * member (`actingFor`, core/access/principal.ts). Seeing one token in clear is a separate, explicit
 * request (`reveal`), checked against the member's right to grant that and audited the same way.
 *
 * A member may instead act as an application whose key they give ("act as an application"). That
 * choice lasts for the session: the server keeps the keyed hash of the key with the session, in
 * this process's memory (bounded), and every use authenticates it again, so a regenerated or
 * deleted key stops working at once. A restart forgets the choice (the key is given again).
 */
import type { Kysely } from 'kysely';
import { authorize, can } from '../access/authorize.ts';
import { isTokenPermission, PERMISSIONS } from '../access/permissions.ts';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import { looksLikeApiKey } from '../crypto/api-key.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import type { Database } from '../storage/schema.ts';
import { principalForKeyHash } from '../tenancy/api-key-cache.ts';
import {
  APPLICATION_MESSAGES,
  applicationOf,
  applicationPrincipal,
  auditApplication,
  findApplicationRow,
  insertApplication,
  type ApplicationRow,
} from '../tenancy/application-store.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { assertMayAttach, assertMayCreate, type GrantSet } from '../tenancy/grant-ceiling.ts';
import type { TokenService, TokenView } from '../tokens/contract.ts';
import { isExpired } from '../tokens/expiry.ts';
import { NAME_MAX } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { ConsoleTokenAccess, ConsoleTokenAccessService } from './contract.ts';

type Member = Extract<Principal, { kind: 'user' }>;

/** The token permissions of a session application: what the Tokens screen does. */
const SESSION_PERMISSIONS = ['token:read', 'token:search', 'token:create', 'token:update', 'token:delete'];

/**
 * The grants of a session application: masked everywhere. `token:use` is left out: a reactor or a
 * proxy given masked data would run on the wrong values.
 */
const SESSION_RULES: readonly AccessRule[] = [
  {
    description: 'Console session: tokens shown masked',
    priority: 1,
    container: '/',
    transform: 'mask',
    permissions: SESSION_PERMISSIONS,
  },
];
export const SESSION_APPLICATION_GRANTS: GrantSet = Object.freeze({ permissions: [], rules: SESSION_RULES });

/** What one reveal needs: reading a token in clear. */
const REVEAL_RULES: readonly AccessRule[] = [
  {
    description: 'Console session: one token revealed',
    priority: 1,
    container: '/',
    transform: 'reveal',
    permissions: ['token:read'],
  },
];
const REVEAL_GRANTS: GrantSet = Object.freeze({ permissions: [], rules: REVEAL_RULES });

/**
 * The grant ceiling of what the console does for a member: only what the member could grant by
 * creating an application themselves, and could attach (acting through an application is
 * attaching it). The one place this is decided for the console.
 */
function assertMemberMayGrant(member: Member, grants: GrantSet): void {
  authorize(member, 'application:create');
  assertMayCreate(member, 'private', grants);
  assertMayAttach(member, grants);
}

function mayGrant(member: Member, grants: GrantSet): boolean {
  try {
    assertMemberMayGrant(member, grants);
    return true;
  } catch {
    return false;
  }
}

function memberOf(principal: Principal): Member {
  if (principal.kind !== 'user') {
    throw new VaultError('FORBIDDEN', 'Only a signed-in member has a console session.');
  }
  return principal;
}

/**
 * The id of the session application of `sessionId` in `tenantId`: derived under the session
 * lookup key, so the session finds its application without a table of its own, and nobody can
 * name (or pre-create) the application of another session.
 */
export function sessionApplicationId(
  vault: Pick<VaultHandle, 'keyedHash'>,
  sessionId: string,
  tenantId: string,
): string {
  const bytes = Buffer.from(
    vault.keyedHash('session', `console-application:${sessionId}:${tenantId}`),
  ).subarray(0, 16);
  // RFC 9562 version 8 (custom) and variant bits, so it reads as any other UUID.
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Given keys kept per console session and tenant, at most (the oldest is forgotten first). */
export const MAX_REMEMBERED_KEYS = 10_000;

/** The keyed hashes of keys members gave, per `<session id>:<tenant id>`, per vault. */
class GivenKeys {
  private readonly byChoice = new Map<string, Uint8Array>();

  get(sessionId: string, tenantId: string): Uint8Array | undefined {
    return this.byChoice.get(`${sessionId}:${tenantId}`);
  }

  set(sessionId: string, tenantId: string, hash: Uint8Array): void {
    const key = `${sessionId}:${tenantId}`;
    this.byChoice.delete(key);
    if (this.byChoice.size >= MAX_REMEMBERED_KEYS) {
      const oldest = this.byChoice.keys().next().value;
      if (oldest !== undefined) this.byChoice.delete(oldest);
    }
    this.byChoice.set(key, hash);
  }

  forget(sessionId: string, tenantId: string): void {
    this.byChoice.delete(`${sessionId}:${tenantId}`);
  }

  forgetSession(sessionId: string): void {
    for (const key of this.byChoice.keys()) if (key.startsWith(`${sessionId}:`)) this.byChoice.delete(key);
  }
}

const givenKeys = new WeakMap<object, GivenKeys>();

function givenKeysOf(vault: object): GivenKeys {
  let keys = givenKeys.get(vault);
  if (keys === undefined) {
    keys = new GivenKeys();
    givenKeys.set(vault, keys);
  }
  return keys;
}

type Keys = Pick<VaultHandle, 'keyedHash' | 'hashApiKey' | 'clock'> & RowKeys;

/** The session application row of `member`, when it exists and has not expired. */
async function liveSessionApplication(
  db: Kysely<Database>,
  vault: Keys,
  member: Member,
): Promise<ApplicationRow | null> {
  const row = await findApplicationRow(
    db,
    vault,
    sessionApplicationId(vault, member.sessionId, member.tenantId),
  );
  if (row === undefined || row.tenant_id !== member.tenantId) return null;
  if (row.expires_at !== null && isExpired(row.expires_at, vault.clock.now())) return null;
  return row;
}

async function removeSessionApplication(
  trx: Kysely<Database>,
  vault: Keys,
  member: Member,
  message: string,
): Promise<void> {
  const row = await findApplicationRow(
    trx,
    vault,
    sessionApplicationId(vault, member.sessionId, member.tenantId),
  );
  if (row === undefined || row.tenant_id !== member.tenantId) return;
  await trx.deleteFrom('applications').where('id', '=', row.id).execute();
  await auditApplication(trx, vault, member, row, 'delete', message);
}

/**
 * Ends what the console made for a session, inside the caller's transaction (sign-out): its
 * session application in every tenant of the user is removed (audited as the member's), and any
 * given key forgotten. Applications of tenants the user has left expire with the session and are
 * removed by the expiry sweep.
 */
export async function endConsoleSession(
  trx: Kysely<Database>,
  vault: Keys,
  session: { readonly userId: string; readonly sessionId: string },
): Promise<void> {
  givenKeysOf(vault).forgetSession(session.sessionId);
  const memberships = await trx
    .selectFrom('members')
    .select(['tenant_id', 'role'])
    .where('user_id', '=', session.userId)
    .execute();
  for (const { tenant_id, role } of memberships) {
    if (role !== 'OWNER' && role !== 'ADMIN') continue;
    const member: Member = {
      kind: 'user',
      tenantId: tenant_id,
      userId: session.userId,
      sessionId: session.sessionId,
      role,
    };
    await removeSessionApplication(trx, vault, member, APPLICATION_MESSAGES.sessionEnded);
  }
}

/** A session application's name says whose session it is (names are cut to the usual limit). */
function sessionApplicationName(email: string): string {
  return `Console session of ${email}`.slice(0, NAME_MAX);
}

/** What the operations below work with: the vault, the token reads they make, the keys members gave. */
interface ConsoleContext {
  readonly vault: VaultHandle;
  readonly tokens: Pick<TokenService, 'get'>;
  readonly given: GivenKeys;
}

/** The application of the key the member gave, while that key still authenticates in this tenant. */
async function givenApplication(context: ConsoleContext, member: Member): Promise<Principal | null> {
  const { given, vault } = context;
  const hash = given.get(member.sessionId, member.tenantId);
  if (hash === undefined) return null;
  const principal = await principalForKeyHash(vault, hash);
  if (principal === null || principal.tenantId !== member.tenantId) {
    given.forget(member.sessionId, member.tenantId);
    return null;
  }
  return principal;
}

async function sessionPrincipal(context: ConsoleContext, member: Member): Promise<Principal | null> {
  const { vault } = context;
  const row = await liveSessionApplication(vault.db, vault, member);
  if (row === null) return null;
  const app = applicationOf(row);
  // The row is the truth, as for any application; it still may not exceed the member's ceiling.
  assertMemberMayGrant(member, app);
  const acting = applicationPrincipal(app);
  if (acting.kind !== 'application') return null;
  return { ...acting, actingFor: { userId: member.userId, sessionId: member.sessionId } };
}

async function status(context: ConsoleContext, member: Member): Promise<ConsoleTokenAccess> {
  const { vault } = context;
  const session_application_allowed = mayGrant(member, SESSION_APPLICATION_GRANTS);
  const chosen = await givenApplication(context, member);
  if (chosen !== null && chosen.kind === 'application') {
    const row = await findApplicationRow(vault.db, vault, chosen.applicationId);
    if (row !== undefined) {
      return {
        mode: 'application',
        application: { id: row.id, name: row.name, expires_at: row.expires_at },
        session_application_allowed,
      };
    }
  }
  const own = await liveSessionApplication(vault.db, vault, member);
  if (own !== null) {
    return {
      mode: 'session-application',
      application: { id: own.id, name: own.name, expires_at: own.expires_at },
      session_application_allowed,
    };
  }
  return { mode: 'none', application: null, session_application_allowed };
}

async function useSessionApplication(context: ConsoleContext, member: Member): Promise<ConsoleTokenAccess> {
  const { vault } = context;
  assertMemberMayGrant(member, SESSION_APPLICATION_GRANTS);
  const session = await vault.db
    .selectFrom('sessions')
    .select('expires_at')
    .where('id', '=', member.sessionId)
    .executeTakeFirst();
  if (session === undefined || isExpired(session.expires_at, vault.clock.now())) {
    throw new VaultError('UNAUTHENTICATED', 'The session token is not valid or has expired.');
  }
  const user = await vault.db
    .selectFrom('users')
    .select('email')
    .where('id', '=', member.userId)
    .executeTakeFirstOrThrow();
  await vault.transaction(async (trx) => {
    if ((await liveSessionApplication(trx, vault, member)) !== null) return;
    // An expired leftover (the sweep had not run yet) makes way for the new one.
    await removeSessionApplication(trx, vault, member, APPLICATION_MESSAGES.expired);
    await insertApplication(
      trx,
      vault,
      member,
      member.tenantId,
      {
        name: sessionApplicationName(user.email),
        type: 'private',
        permissions: [...SESSION_APPLICATION_GRANTS.permissions],
        rules: [...SESSION_APPLICATION_GRANTS.rules],
        // It never outlives the session it was made for.
        expiresAt: session.expires_at,
        canCreateExpiring: false,
      },
      sessionApplicationId(vault, member.sessionId, member.tenantId),
    );
  });
  context.given.forget(member.sessionId, member.tenantId);
  return status(context, member);
}

async function useApplicationKey(
  context: ConsoleContext,
  member: Member,
  key: string,
): Promise<ConsoleTokenAccess> {
  const { vault } = context;
  const application =
    typeof key === 'string' && looksLikeApiKey(key.trim())
      ? await principalForKeyHash(vault, vault.hashApiKey(key.trim()))
      : null;
  if (application === null || application.tenantId !== member.tenantId) {
    throw validationError(
      { key: ['is not the key of an application of this tenant'] },
      'The key is not the key of an application of this tenant.',
    );
  }
  const tokenPermissions = PERMISSIONS.map((p) => p.type).filter(isTokenPermission);
  if (!tokenPermissions.some((p) => can(application, p))) {
    throw validationError(
      { key: ['belongs to an application without token permissions'] },
      'That application holds no token permission: the Tokens screen could do nothing as it.',
    );
  }
  await vault.transaction((trx) => removeSessionApplication(trx, vault, member, APPLICATION_MESSAGES.delete));
  context.given.set(member.sessionId, member.tenantId, vault.hashApiKey(key.trim()));
  return status(context, member);
}

async function forget(context: ConsoleContext, member: Member): Promise<ConsoleTokenAccess> {
  const { vault } = context;
  context.given.forget(member.sessionId, member.tenantId);
  await vault.transaction((trx) => removeSessionApplication(trx, vault, member, APPLICATION_MESSAGES.delete));
  return status(context, member);
}

async function reveal(context: ConsoleContext, member: Member, tokenId: string): Promise<TokenView> {
  const { tokens, vault } = context;
  const chosen = await givenApplication(context, member);
  // Acting as a given application: exactly what its key shows (its own transform).
  if (chosen !== null) return tokens.get(chosen, tokenId);
  const own = await liveSessionApplication(vault.db, vault, member);
  if (own === null) {
    throw new VaultError(
      'FORBIDDEN',
      'This console session has no token access in this tenant: choose it on the Tokens screen first.',
    );
  }
  assertMemberMayGrant(member, REVEAL_GRANTS);
  return tokens.get(
    {
      kind: 'application',
      tenantId: member.tenantId,
      applicationId: own.id,
      applicationType: 'private',
      permissions: [],
      rules: REVEAL_RULES,
      actingFor: { userId: member.userId, sessionId: member.sessionId },
    },
    tokenId,
  );
}

export function createConsoleTokenAccessService(
  vault: VaultHandle,
  tokens: Pick<TokenService, 'get'>,
): ConsoleTokenAccessService {
  const context: ConsoleContext = { vault, tokens, given: givenKeysOf(vault) };
  // memberOf refuses a caller that is not a member: as a rejected promise, like every other failure.
  return {
    status: async (principal) => status(context, memberOf(principal)),
    useSessionApplication: async (principal) => useSessionApplication(context, memberOf(principal)),
    useApplicationKey: async (principal, key) => useApplicationKey(context, memberOf(principal), key),
    forget: async (principal) => forget(context, memberOf(principal)),
    principalFor: async (principal) => {
      const member = memberOf(principal);
      return (await givenApplication(context, member)) ?? (await sessionPrincipal(context, member));
    },
    reveal: async (principal, tokenId) => reveal(context, memberOf(principal), tokenId),
  };
}

/**
 * The domain services, as the HTTP routes and the CLI call them.
 * Every method that acts on tenant data takes the acting Principal, checks it with
 * `authorize`/`transformFor` (core/access), and writes its audit entry in the same transaction.
 * Validation failures throw VaultError('VALIDATION_FAILED', …, { errors }) and change nothing.
 */
import type { Page, PageRequest, User } from './common-types.ts';
import type { Principal } from './access/principal.ts';
import type { AccessRule } from './access/rules.ts';
import type { ApplicationType } from './access/permissions.ts';
import type { AuditLogEntry, ChainReport, LogFilter } from './audit/audit-log.ts';
import type { Detokenizer } from './detokenize/index.ts';
import type { ConsoleTokenAccessService } from './identity/console-token-access.ts';
import type { OutboundClient } from './outbound/client.ts';
import type { ProxyInvoker, ProxyService } from './proxies/index.ts';
import type { ReactorService } from './reactors/contract.ts';
import type { Sandbox, SandboxOptions } from './sandbox/index.ts';
import type { TenancyOptions, InvitationService, MemberService, UsageService } from './tenancy/contract.ts';
import type { TokenAssociationService } from './tokens/associations.ts';
import type { TokenService } from './tokens/contract.ts';
import type { KdfLimits, VaultHandle } from './vault/types.ts';

export type { Page, PageRequest, User } from './common-types.ts';

export interface Tenant {
  readonly id: string;
  readonly owner_id: string | null;
  readonly name: string;
  readonly settings: Record<string, string>;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
}

export interface Application {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly type: ApplicationType;
  readonly permissions: string[];
  readonly rules: AccessRule[];
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
  /** Expiring applications: when the key stops working (ISO UTC); null for every other type. */
  readonly expires_at: string | null;
  /** Private applications: whether they may create expiring applications. */
  readonly can_create_expiring_applications: boolean;
}

/** Create and regenerate responses: the only place a key is ever shown. */
export interface ApplicationWithKey extends Application {
  readonly key: string;
}

export interface ApplicationInput {
  readonly name: string;
  readonly type: ApplicationType;
  readonly permissions?: readonly string[];
  readonly rules?: readonly AccessRule[];
  /** Expiring applications: an expiry date-time (default: one minute from now). */
  readonly expires_at?: string;
  readonly can_create_expiring_applications?: boolean;
}

export interface ApplicationUpdate {
  readonly name: string;
  readonly permissions?: readonly string[];
  readonly rules?: readonly AccessRule[];
  readonly can_create_expiring_applications?: boolean;
}

/** An audit log entry as the API returns it. */
export type LogEntry = AuditLogEntry;

export interface SignInResult {
  readonly token: string;
  readonly expires_at: string;
  readonly user_id: string;
}

export interface ServiceOptions {
  /** Argon2id cost for user passwords; default libsodium INTERACTIVE. Tests pass small limits. */
  readonly passwordKdf?: KdfLimits;
  /** Session lifetime; default 12 hours. */
  readonly sessionTtlMs?: number;
  /**
   * Tenant administration (invitation mail, accept links, the usage report's plan). Default: mail
   * into the outbox folder `<vault dir>/outbox` from the configuration's default sender, accept
   * links on `http://127.0.0.1:<default port>/invitations/accept`, 1000 included monthly active tokens.
   */
  readonly tenancy?: TenancyOptions;
  /** Client for requests to third-party servers (proxy, sandbox fetch). Default: system CAs, nothing allow-listed, 25 s. */
  readonly outbound?: OutboundClient;
  /**
   * The sandbox of reactor and proxy-transform code: limits (default 64 MiB memory, 30 s, 1 MiB
   * output), worker threads and the network function behind its `fetch` (default: `outbound`,
   * through the destination policy).
   */
  readonly sandbox?: SandboxOptions;
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

export interface TenantService {
  /**
   * Creates a tenant, its owner (user created if new; with `ownerEmail`) as OWNER member, and
   * — unless `withApplication: false` — a first management application whose key is returned once.
   * `actor` null = the operator at the CLI.
   */
  create(
    input: {
      name: string;
      ownerEmail?: string;
      ownerPassword?: string;
      ownerUserId?: string;
      withApplication?: boolean;
    },
    actor: Principal | null,
  ): Promise<{ tenant: Tenant; owner: User | null; application: ApplicationWithKey | null }>;
  get(principal: Principal): Promise<Tenant>;
  update(principal: Principal, input: { name: string; settings?: Record<string, string> }): Promise<Tenant>;
  /** Removes every row of the tenant in one transaction; leaves one audit record of the deletion. */
  delete(principal: Principal): Promise<void>;
  listForUser(userId: string): Promise<Tenant[]>;
  /** Every tenant (operator use, CLI). */
  listAll(): Promise<Tenant[]>;
}

export interface ApplicationService {
  create(principal: Principal, input: ApplicationInput): Promise<ApplicationWithKey>;
  list(
    principal: Principal,
    filter: { ids?: readonly string[]; types?: readonly ApplicationType[] },
    page: PageRequest,
  ): Promise<Page<Application>>;
  get(principal: Principal, id: string): Promise<Application>;
  /** The application behind the calling key. */
  getSelf(principal: Principal): Promise<Application>;
  update(principal: Principal, id: string, input: ApplicationUpdate): Promise<Application>;
  delete(principal: Principal, id: string): Promise<void>;
  regenerate(principal: Principal, id: string): Promise<ApplicationWithKey>;
  /** Removes expired (expiring) applications; returns how many. */
  sweepExpired(): Promise<number>;
}

export interface LogService {
  list(principal: Principal, filter: LogFilter, page: PageRequest): Promise<Page<LogEntry>>;
  entityTypes(principal: Principal): Promise<Array<{ display_name: string; value: string }>>;
  /** Operator tool (svc logs verify): checks every chain, or one tenant's. */
  verify(tenantId?: string): Promise<ChainReport>;
}

export interface Services {
  readonly vault: VaultHandle;
  readonly tokens: TokenService;
  readonly tokenAssociations: TokenAssociationService;
  readonly auth: AuthService;
  readonly users: UserService;
  readonly tenants: TenantService;
  readonly applications: ApplicationService;
  readonly logs: LogService;
  readonly members: MemberService;
  readonly invitations: InvitationService;
  readonly usage: UsageService;
  /** `{{ <token id> | filters }}` expressions → token data (reactors, proxies, POST /detokenize). */
  readonly detokenizer: Detokenizer;
  /** The destination policy every request to a third-party server goes through. */
  readonly outbound: OutboundClient;
  /** The QuickJS sandbox for user code (workers start on first use). */
  readonly sandbox: Sandbox;
  readonly proxies: ProxyService;
  /** Runs `/proxy` requests. */
  readonly proxyInvoker: ProxyInvoker;
  readonly reactors: ReactorService;
  /** How a member's console session reads tokens (its session application, or a given key). */
  readonly consoleTokenAccess: ConsoleTokenAccessService;
}

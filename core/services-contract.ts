/**
 * The domain services together, as the HTTP routes and the CLI receive them (`createServices`,
 * core/services.ts), and the options they are made with. Each service's interface and types are
 * declared by the module that owns them (core/tenancy/contract.ts, core/identity/contract.ts,
 * core/tokens/contract.ts, core/reactors/contract.ts, core/proxies/contract.ts, …); this file only
 * gathers them, and re-exports the types the faces name most, so nothing in core imports it back.
 * Every method that acts on tenant data takes the acting Principal, checks it with
 * `authorize`/`transformFor` (core/access), and writes its audit entry in the same transaction.
 * Validation failures throw VaultError('VALIDATION_FAILED', …, { errors }) and change nothing.
 */
import type { Page, PageRequest } from './common-types.ts';
import type { Principal } from './access/principal.ts';
import type { AuditLogEntry, ChainReport, LogFilter } from './audit/audit-log.ts';
import type { Detokenizer } from './detokenize/index.ts';
import type { AuthService, ConsoleTokenAccessService, UserService } from './identity/contract.ts';
import type { OutboundClient } from './outbound/client.ts';
import type { ProxyInvoker, ProxyService } from './proxies/index.ts';
import type { ReactorService } from './reactors/contract.ts';
import type { Sandbox, SandboxOptions } from './sandbox/index.ts';
import type {
  ApplicationService,
  InvitationService,
  MemberService,
  TenancyOptions,
  TenantService,
  UsageService,
} from './tenancy/contract.ts';
import type { TokenAssociationService } from './tokens/associations.ts';
import type { TokenService } from './tokens/contract.ts';
import type { VaultHandle } from './vault/types.ts';
import type { KdfLimits } from './crypto/root-key.ts';

export type { Page, PageRequest, User } from './common-types.ts';
export type { AuthService, SignInResult, UserService } from './identity/contract.ts';
export type {
  Application,
  ApplicationInput,
  ApplicationService,
  ApplicationUpdate,
  ApplicationWithKey,
  Tenant,
  TenantService,
} from './tenancy/contract.ts';

/** An audit log entry as the API returns it: the stored entry and the name of its actor. */
export interface LogEntry extends AuditLogEntry {
  /**
   * Who acted, as people know them, resolved when the log is read: an application's name, a
   * user's e-mail, `operator` for the operator; null once the actor no longer exists (a deleted
   * application) and for entries the vault wrote itself.
   */
  readonly actor_name: string | null;
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
   * output), worker threads, how tenants share them (`pool`), and the network function behind its
   * `fetch` (default: `outbound`, through the destination policy).
   */
  readonly sandbox?: SandboxOptions;
}

/**
 * The audit log's service. Declared here until the audit log's rework (core/audit) has merged; it
 * then moves to the audit module's own contract like the others.
 */
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

/**
 * Tenants and their administration: tenants, applications, the usage report, members, and
 * invitations with their states (pending, expired; accepted and deleted ones are gone).
 * `Services.tenants`, `Services.applications`, `Services.members`, `Services.invitations` and
 * `Services.usage` implement it. Every method takes the acting Principal, checks the permission
 * named beside it with `authorize` (core/access), and audits in the same transaction
 * (entity types `tenantMember`, `tenantInvitation`). Secrets (invitation links) never reach audit
 * entries, logs or errors.
 */
import type { ApplicationType } from '../access/permissions.ts';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import type { Page, PageRequest, User } from '../common-types.ts';
import type { MailDelivery, MailTransportConfig } from '../mail/mailer.ts';

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

export interface Member {
  readonly id: string;
  readonly tenant_id: string;
  /** `OWNER` or `ADMIN`. */
  readonly role: string;
  readonly user: User;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
}

export type InvitationStatus = 'PENDING' | 'EXPIRED';

export interface Invitation {
  readonly id: string;
  readonly tenant_id: string;
  readonly email: string;
  /** Derived from `expires_at` at read time: EXPIRED is visible the moment it passes. */
  readonly status: InvitationStatus;
  readonly expires_at: string;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly modified_by: string | null;
  readonly modified_at: string | null;
}

export interface TenancyOptions {
  readonly mail: MailTransportConfig;
  /**
   * Base of accept links, e.g. `http://127.0.0.1:8080/invitations/accept` (the secret is appended as
   * `?token=`). A function when the base is known only later (a server on port 0 learns its URL when
   * it listens): it is read each time a link is made.
   */
  readonly acceptBaseUrl: string | (() => string);
  /** Monthly active tokens included in the plan (usage report); default documented in docs. */
  readonly includedMonthlyActiveTokens?: number;
}

export interface UsageReport {
  readonly token_report: {
    readonly metrics_by_type: Record<string, { count: number; last_created_at?: string }>;
    readonly included_monthly_active_tokens: number;
    readonly monthly_active_tokens: number;
    readonly monthly_active_token_history: Array<{ year: number; month: number; count: number }>;
  };
}

export interface MemberService {
  /** tenant:member:read; `userIds` filter; page ≥1, size 1..50 (400 otherwise). */
  list(
    principal: Principal,
    filter: { userIds?: readonly string[] },
    page: PageRequest,
  ): Promise<Page<Member>>;
  /** tenant:member:delete; the OWNER cannot be removed (UNPROCESSABLE 422); their sessions lose the tenant at once. */
  remove(principal: Principal, memberId: string): Promise<void>;
  /**
   * tenant:member:update. `ADMIN` keeps an ADMIN as is; `OWNER` on an ADMIN transfers ownership
   * (the previous owner becomes ADMIN, the tenant's `owner_id` follows); the OWNER's own role
   * cannot be lowered (422: promote another member instead). Unknown roles → 400.
   */
  updateRole(principal: Principal, memberId: string, role: string): Promise<Member>;
  /** tenant:member:read; the OWNER member, NOT_FOUND for a tenant without one. */
  owner(principal: Principal): Promise<Member>;
}

/** An invitation just mailed, with where the mail went (never the link). */
export interface SentInvitation extends Invitation {
  readonly mail: MailDelivery;
}

export interface InvitationService {
  /**
   * tenant:invitation:create; RFC 5322 e-mail; an existing member's e-mail → CONFLICT; sends the mail.
   * An address with an invitation already gets that invitation resent (new link and expiry).
   */
  create(principal: Principal, input: { email: string }): Promise<SentInvitation>;
  /** tenant:invitation:read; `status` filter; page ≥1, size 1..100. */
  list(
    principal: Principal,
    filter: { status?: InvitationStatus },
    page: PageRequest,
  ): Promise<Page<Invitation>>;
  get(principal: Principal, id: string): Promise<Invitation>;
  /** tenant:invitation:create AND tenant:invitation:update; new expiry now + 72 h; earlier links stop working; mail sent again. */
  resend(principal: Principal, id: string): Promise<SentInvitation>;
  /** tenant:invitation:delete; every outstanding link stops working. */
  delete(principal: Principal, id: string): Promise<void>;
  /**
   * No principal: the secret from the link is the credential. A new user gives first/last name and
   * password; an existing user proves who they are with their password. Creates an ADMIN member and
   * consumes the invitation. Expired, resent-over, deleted or used links → a clear 4xx.
   */
  accept(input: {
    token: string;
    first_name?: string;
    last_name?: string;
    password?: string;
  }): Promise<{ member: Member }>;
}

export interface UsageService {
  /** report:read. */
  report(principal: Principal): Promise<UsageReport>;
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

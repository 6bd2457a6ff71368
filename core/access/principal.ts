import type { ApplicationType } from './permissions.ts';
import type { AccessRule } from './rules.ts';

export const MEMBER_ROLES = ['OWNER', 'ADMIN'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * What a caller asks to be shown of token data. `mask` caps every transform at mask (the CLI shows
 * masked views unless `--reveal` is given); `reveal`, the default, leaves the transforms as the
 * grants give them. Asking never shows more than the grants allow and never changes what the
 * caller may do (core/access/authorize.ts, `transformFor` and `grantedTransform`).
 */
export const REQUESTED_VIEWS = ['mask', 'reveal'] as const;
export type RequestedView = (typeof REQUESTED_VIEWS)[number];

export function isRequestedView(value: string): value is RequestedView {
  return (REQUESTED_VIEWS as readonly string[]).includes(value);
}

/**
 * Who is calling, in which tenant. Every check and every audit entry starts from one of these.
 * - application: a machine with an API key; the key fixes tenant and grants.
 * - user: a person signed in with a session, acting in the tenant named by SVC-TENANT-ID through
 *   their member role.
 * - operator: someone at this machine holding the vault key (the CLI). They could decrypt the files
 *   anyway, so they act with every permission; their actions are still audited.
 */
export type Principal = (
  | {
      readonly kind: 'application';
      readonly tenantId: string;
      readonly applicationId: string;
      readonly applicationType: ApplicationType;
      readonly permissions: readonly string[];
      readonly rules: readonly AccessRule[];
      /** A private key whose application may create expiring applications. */
      readonly canCreateExpiringApplications?: boolean;
      /**
       * The signed-in member whose console session acts through this application (its session
       * application, core/identity/console-token-access.ts): the audit log names that member.
       */
      readonly actingFor?: { readonly userId: string; readonly sessionId: string };
    }
  | {
      readonly kind: 'user';
      readonly tenantId: string;
      readonly userId: string;
      readonly sessionId: string;
      readonly role: MemberRole;
    }
  | { readonly kind: 'operator'; readonly tenantId: string }
) & { readonly view?: RequestedView };

/**
 * Someone holding the vault key (the CLI), acting in this tenant: they could decrypt the files
 * anyway, so they act with every permission, and every action is still audited.
 */
export function operatorIn(tenantId: string, view?: RequestedView): Principal {
  return view === undefined ? { kind: 'operator', tenantId } : { kind: 'operator', tenantId, view };
}

/** The same caller, asking to be shown token data as `view`. */
export function withView(principal: Principal, view: RequestedView): Principal {
  return { ...principal, view };
}

/** What an audit entry's `actor_type` can be. */
export const ACTOR_TYPES = ['application', 'user', 'operator'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * How the audit log names the actor. A console session's application names its member: it only
 * ever acts for that member's session, and an admin reading the log must see who read.
 */

export function actorOf(principal: Principal): { actor_id: string | null; actor_type: ActorType } {
  switch (principal.kind) {
    case 'application':
      return principal.actingFor === undefined
        ? { actor_id: principal.applicationId, actor_type: 'application' }
        : { actor_id: principal.actingFor.userId, actor_type: 'user' };
    case 'user':
      return { actor_id: principal.userId, actor_type: 'user' };
    case 'operator':
      return { actor_id: null, actor_type: 'operator' };
  }
}

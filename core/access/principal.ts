import type { ApplicationType } from './permissions.ts';
import type { AccessRule } from './rules.ts';

export const MEMBER_ROLES = ['OWNER', 'ADMIN'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * Who is calling, in which tenant. Every check and every audit entry starts from one of these.
 * - application: a machine with an API key; the key fixes tenant and grants.
 * - user: a person signed in with a session, acting in the tenant named by SVC-TENANT-ID through
 *   their member role.
 * - operator: someone at this machine holding the vault key (the CLI). They could decrypt the files
 *   anyway, so they act with every permission; their actions are still audited.
 */
export type Principal =
  | {
      readonly kind: 'application';
      readonly tenantId: string;
      readonly applicationId: string;
      readonly applicationType: ApplicationType;
      readonly permissions: readonly string[];
      readonly rules: readonly AccessRule[];
      /** A private key whose application may create expiring applications. */
      readonly canCreateExpiringApplications?: boolean;
    }
  | {
      readonly kind: 'user';
      readonly tenantId: string;
      readonly userId: string;
      readonly sessionId: string;
      readonly role: MemberRole;
    }
  | { readonly kind: 'operator'; readonly tenantId: string };

/**
 * Someone holding the vault key (the CLI), acting in this tenant: they could decrypt the files
 * anyway, so they act with every permission, and every action is still audited.
 */
export function operatorIn(tenantId: string): Principal {
  return { kind: 'operator', tenantId };
}

/** How the audit log names the actor. */
export function actorOf(principal: Principal): { actor_id: string | null; actor_type: string } {
  switch (principal.kind) {
    case 'application':
      return { actor_id: principal.applicationId, actor_type: 'application' };
    case 'user':
      return { actor_id: principal.userId, actor_type: 'user' };
    case 'operator':
      return { actor_id: null, actor_type: 'operator' };
  }
}

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MEMBER_ROLES, actorOf } from '../access/principal.ts';
import type { MemberRole, Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';

export const MEMBER_ENTITY = 'tenantMember';

export interface Membership {
  readonly id: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly role: MemberRole;
}

export function isMemberRole(value: string): value is MemberRole {
  return (MEMBER_ROLES as readonly string[]).includes(value);
}

/** Adds a member inside the caller's transaction, with its audit entry. */
export async function addMember(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  actor: Principal,
  member: { tenantId: string; userId: string; role: MemberRole },
): Promise<Membership> {
  const id = randomUUID();
  await trx
    .insertInto('members')
    .values({
      id,
      tenant_id: member.tenantId,
      user_id: member.userId,
      role: member.role,
      created_at: vault.clock.now().toISOString(),
      created_by: actorOf(actor).actor_id,
      modified_at: null,
      modified_by: null,
    })
    .execute();
  await appendAudit(trx, vault, actor, {
    tenantId: member.tenantId,
    entityType: MEMBER_ENTITY,
    entityId: id,
    operation: 'create',
    message: `Tenant member added (${member.role})`,
  });
  return { id, ...member };
}

/** The user's membership of a tenant, or null (also for a role this version does not know). */
export async function findMembership(
  db: Kysely<Database>,
  tenantId: string,
  userId: string,
): Promise<Membership | null> {
  const row = await db
    .selectFrom('members')
    .select(['id', 'tenant_id', 'user_id', 'role'])
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row || !isMemberRole(row.role)) return null;
  return { id: row.id, tenantId: row.tenant_id, userId: row.user_id, role: row.role };
}

/** How a member acts in a tenant. */
export function memberPrincipal(membership: Membership, sessionId: string): Principal {
  return {
    kind: 'user',
    tenantId: membership.tenantId,
    userId: membership.userId,
    sessionId,
    role: membership.role,
  };
}

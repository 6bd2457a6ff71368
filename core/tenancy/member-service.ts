import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import { VaultError } from '../errors/catalogue.ts';
import { MEMBER_ENTITY } from '../identity/members.ts';
import { userOf } from '../identity/users.ts';
import type { Page } from '../services-contract.ts';
import type { Database, MembersTable, UsersTable } from '../storage/schema.ts';
import { FieldErrorCollector, checkPage } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Member, MemberService } from './admin-contract.ts';

/** Page size cap of the members list (service interface: Tenant members, maximum 50). */
export const MAX_MEMBER_PAGE_SIZE = 50;

type MemberRow = Selectable<MembersTable> & Pick<UsersTable, 'email' | 'first_name' | 'last_name'>;

export function memberOf(row: MemberRow): Member {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    role: row.role,
    user: userOf({ id: row.user_id, email: row.email, first_name: row.first_name, last_name: row.last_name }),
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

function membersWithUsers(db: Kysely<Database>) {
  return db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select([
      'members.id',
      'members.tenant_id',
      'members.user_id',
      'members.role',
      'members.created_by',
      'members.created_at',
      'members.modified_by',
      'members.modified_at',
      'users.email',
      'users.first_name',
      'users.last_name',
    ]);
}

/** One member with its user, or undefined. */
export async function findMemberRow(db: Kysely<Database>, id: string): Promise<MemberRow | undefined> {
  return membersWithUsers(db).where('members.id', '=', id).executeTakeFirst();
}

export async function auditMember(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  actor: Principal,
  member: { id: string; tenant_id: string },
  operation: 'read' | 'delete',
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId: member.tenant_id,
    entityType: MEMBER_ENTITY,
    entityId: member.id,
    operation,
    message: operation === 'read' ? 'Tenant member read' : 'Tenant member removed',
  });
}

export function createMemberService(vault: VaultHandle): MemberService {
  return {
    async list(principal, filter, page) {
      authorize(principal, 'tenant:member:read', { tenantId: principal.tenantId });
      const { offset, limit } = checkPage(page, MAX_MEMBER_PAGE_SIZE);
      const errors = new FieldErrorCollector();
      const userIds = filter.userIds ?? [];
      // One SQL parameter each: keep well below SQLite's limit.
      if (userIds.length > 100) errors.add('user_id', 'at most 100 ids');
      if (userIds.some((id) => typeof id !== 'string' || id === ''))
        errors.add('user_id', 'must be user ids');
      errors.throwIfAny();
      return vault.transaction(async (trx): Promise<Page<Member>> => {
        let query = membersWithUsers(trx).where('members.tenant_id', '=', principal.tenantId);
        if (userIds.length > 0) query = query.where('members.user_id', 'in', [...userIds]);
        const count = await query
          .clearSelect()
          .select((e) => e.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const rows = await query
          .orderBy('members.created_at')
          // Insertion order breaks ties (the owner, added with the tenant, comes first).
          .orderBy(sql`members.rowid`)
          .limit(limit)
          .offset(offset)
          .execute();
        for (const row of rows) await auditMember(trx, vault, principal, row, 'read');
        return { total: Number(count.n), items: rows.map(memberOf) };
      });
    },

    async remove(principal, memberId) {
      authorize(principal, 'tenant:member:delete');
      await vault.transaction(async (trx) => {
        const row = typeof memberId === 'string' ? await findMemberRow(trx, memberId) : undefined;
        // Another tenant's member is NOT_FOUND exactly like a missing one.
        if (!row) throw new VaultError('NOT_FOUND', 'Not found.');
        authorize(principal, 'tenant:member:delete', { tenantId: row.tenant_id });
        if (row.role === 'OWNER') {
          throw new VaultError(
            'UNPROCESSABLE',
            'The tenant owner cannot be removed; only other members can.',
          );
        }
        // Sessions are vault-wide and stay; authenticateSession checks membership on every request,
        // so the removed user loses this tenant from their next request on.
        await trx.deleteFrom('members').where('id', '=', row.id).execute();
        await auditMember(trx, vault, principal, row, 'delete');
      });
    },
  };
}

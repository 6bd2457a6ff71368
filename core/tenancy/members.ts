import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import { authorize } from '../access/authorize.ts';
import type { Permission } from '../access/permissions.ts';
import { MEMBER_ROLES, actorOf, type MemberRole, type Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { userOf } from '../identity/users.ts';
import type { Page } from '../common-types.ts';
import type { Database, MembersTable, UsersTable } from '../storage/schema.ts';
import { FieldErrorCollector, checkPage } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import {
  updateAuthenticatedRow,
  verified,
  verifiedRows,
  withRowMac,
} from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Member, MemberService } from './contract.ts';
import { withShownActors } from '../access/actor-ids.ts';
import { findTenantRow } from './tenant-store.ts';

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
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'> & RowKeys,
  actor: Principal,
  member: { tenantId: string; userId: string; role: MemberRole },
): Promise<Membership> {
  const id = randomUUID();
  await trx
    .insertInto('members')
    .values(
      withRowMac(vault, 'members', {
        id,
        tenant_id: member.tenantId,
        user_id: member.userId,
        role: member.role,
        created_at: vault.clock.now().toISOString(),
        created_by: actorOf(actor).actor_id,
        modified_at: null,
        modified_by: null,
      }),
    )
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

/**
 * The user's membership of a tenant, or null (also for a role this version does not know); a row
 * whose MAC fails is INTEGRITY_FAILED.
 */
export async function findMembership(
  db: Kysely<Database>,
  keys: RowKeys,
  tenantId: string,
  userId: string,
): Promise<Membership | null> {
  const row = verified(
    keys,
    'members',
    await db
      .selectFrom('members')
      .select(['id', 'tenant_id', 'user_id', 'role', 'row_mac'])
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .executeTakeFirst(),
  );
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

/** Page size cap of the members list. */
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
      'members.row_mac',
      'users.email',
      'users.first_name',
      'users.last_name',
    ]);
}

/** The tenant's OWNER member with its user, verified, or undefined. */
async function findOwnerRow(
  db: Kysely<Database>,
  keys: RowKeys,
  tenantId: string,
): Promise<MemberRow | undefined> {
  return verified(
    keys,
    'members',
    await membersWithUsers(db)
      .where('members.tenant_id', '=', tenantId)
      .where('members.role', '=', 'OWNER')
      .executeTakeFirst(),
  );
}

/** One member with its user, verified, or undefined. */
export async function findMemberRow(
  db: Kysely<Database>,
  keys: RowKeys,
  id: string,
): Promise<MemberRow | undefined> {
  return verified(
    keys,
    'members',
    await membersWithUsers(db).where('members.id', '=', id).executeTakeFirst(),
  );
}

export async function auditMember(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  actor: Principal,
  member: { id: string; tenant_id: string },
  operation: 'read' | 'update' | 'delete',
  message: string = MEMBER_MESSAGES[operation],
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId: member.tenant_id,
    entityType: MEMBER_ENTITY,
    entityId: member.id,
    operation,
    message,
  });
}

const MEMBER_MESSAGES = {
  read: 'Tenant member read',
  update: 'Tenant member updated',
  delete: 'Tenant member removed',
} as const;

/** A member of the caller's tenant for `permission`; another tenant's is NOT_FOUND like a missing one. */
async function loadMember(
  trx: Kysely<Database>,
  keys: RowKeys,
  principal: Principal,
  permission: Permission,
  memberId: string,
): Promise<MemberRow> {
  const row = typeof memberId === 'string' ? await findMemberRow(trx, keys, memberId) : undefined;
  if (!row) throw new VaultError('NOT_FOUND', 'Not found.');
  authorize(principal, permission, { tenantId: row.tenant_id });
  return row;
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
        const rows = verifiedRows(
          vault,
          'members',
          await query
            .orderBy('members.created_at')
            // Insertion order breaks ties (the owner, added with the tenant, comes first).
            .orderBy(sql`members.rowid`)
            .limit(limit)
            .offset(offset)
            .execute(),
        );
        for (const row of rows) await auditMember(trx, vault, principal, row, 'read');
        return {
          total: Number(count.n),
          items: rows.map((row) => withShownActors(principal, memberOf(row))),
        };
      });
    },

    async remove(principal, memberId) {
      authorize(principal, 'tenant:member:delete');
      await vault.transaction(async (trx) => {
        const row = await loadMember(trx, vault, principal, 'tenant:member:delete', memberId);
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

    async updateRole(principal, memberId, role) {
      authorize(principal, 'tenant:member:update');
      if (typeof role !== 'string' || !isMemberRole(role)) {
        throw validationError({ role: [`must be one of ${MEMBER_ROLES.join(', ')}`] });
      }
      return vault.transaction(async (trx) => {
        const row = await loadMember(trx, vault, principal, 'tenant:member:update', memberId);
        if (row.role === role) return withShownActors(principal, memberOf(row));
        if (row.role === 'OWNER') {
          throw new VaultError(
            'UNPROCESSABLE',
            "The owner's role cannot be lowered; make another member OWNER to transfer ownership.",
          );
        }
        const now = vault.clock.now().toISOString();
        const by = actorOf(principal).actor_id;
        // Ownership moves in one transaction: the tenant never has two owners or none.
        const previous = await findOwnerRow(trx, vault, row.tenant_id);
        if (previous) {
          await updateAuthenticatedRow(trx, vault, 'members', previous, {
            role: 'ADMIN',
            modified_at: now,
            modified_by: by,
          });
          await auditMember(trx, vault, principal, previous, 'update', 'Tenant member role changed to ADMIN');
        }
        await updateAuthenticatedRow(trx, vault, 'members', row, { role, modified_at: now, modified_by: by });
        const tenant = await findTenantRow(trx, vault, row.tenant_id);
        if (!tenant) throw new VaultError('NOT_FOUND', 'Not found.');
        await updateAuthenticatedRow(trx, vault, 'tenants', tenant, {
          owner_id: row.user_id,
          modified_at: now,
          modified_by: by,
        });
        await auditMember(trx, vault, principal, row, 'update', `Tenant member role changed to ${role}`);
        const updated = await findMemberRow(trx, vault, row.id);
        if (!updated) throw new VaultError('INTERNAL', 'The updated member disappeared.');
        return withShownActors(principal, memberOf(updated));
      });
    },

    async owner(principal) {
      authorize(principal, 'tenant:member:read', { tenantId: principal.tenantId });
      return vault.transaction(async (trx) => {
        const row = await findOwnerRow(trx, vault, principal.tenantId);
        if (!row) throw new VaultError('NOT_FOUND', 'This tenant has no owner.');
        await auditMember(trx, vault, principal, row, 'read');
        return withShownActors(principal, memberOf(row));
      });
    },
  };
}

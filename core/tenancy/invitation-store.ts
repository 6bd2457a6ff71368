/**
 * Reading invitation rows and writing their audit entries: an invitation as the API shows it (its
 * status derived from the clock), the lookup of one for a permission, and the checks the
 * operations share (the tenant's name, membership of an address).
 */
import type { Kysely, Selectable } from 'kysely';
import { authorize } from '../access/authorize.ts';
import type { Permission } from '../access/permissions.ts';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { AuditOperation } from '../audit/entity-types.ts';
import { VaultError } from '../errors/catalogue.ts';
import { verified } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Database, InvitationsTable } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { Invitation, InvitationStatus } from './contract.ts';

export const INVITATION_ENTITY = 'tenantInvitation';

const MESSAGES = {
  create: 'Tenant invitation created and sent',
  read: 'Tenant invitation read',
  update: 'Tenant invitation resent',
  delete: 'Tenant invitation deleted',
} as const;

export type InvitationRow = Selectable<InvitationsTable>;
/** An invitation as planned before its mail is sent; its MAC is computed when it is written. */
export type PlannedInvitation = Omit<InvitationRow, 'row_mac'>;

export function statusAt(expiresAt: string, now: Date): InvitationStatus {
  // Both are toISOString() output, which sorts as it compares.
  return expiresAt <= now.toISOString() ? 'EXPIRED' : 'PENDING';
}

export function invitationOf(row: PlannedInvitation, now: Date): Invitation {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    email: row.email,
    status: statusAt(row.expires_at, now),
    expires_at: row.expires_at,
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

export async function auditInvitation(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  actor: Principal,
  row: { id: string; tenant_id: string },
  operation: AuditOperation & keyof typeof MESSAGES,
  message: string = MESSAGES[operation],
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId: row.tenant_id,
    entityType: INVITATION_ENTITY,
    entityId: row.id,
    operation,
    message,
  });
}

/**
 * Invitation `id` for `permissions`: they are checked before the lookup; another tenant's
 * invitation is NOT_FOUND exactly like a missing one.
 */
export async function loadInvitationFor(
  trx: Kysely<Database>,
  keys: RowKeys,
  principal: Principal,
  permissions: readonly Permission[],
  id: string,
): Promise<InvitationRow> {
  for (const p of permissions) authorize(principal, p);
  const row =
    typeof id === 'string'
      ? verified(
          keys,
          'invitations',
          await trx.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst(),
        )
      : undefined;
  if (!row) throw new VaultError('NOT_FOUND', 'Not found.');
  for (const p of permissions) authorize(principal, p, { tenantId: row.tenant_id });
  return row;
}

export async function tenantName(trx: Kysely<Database>, tenantId: string): Promise<string> {
  const tenant = await trx.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw new VaultError('NOT_FOUND', 'No such tenant.');
  return tenant.name;
}

export async function isMemberByEmail(
  trx: Kysely<Database>,
  tenantId: string,
  email: string,
): Promise<boolean> {
  const row = await trx
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select('members.id')
    .where('members.tenant_id', '=', tenantId)
    .where('users.email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

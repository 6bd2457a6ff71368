/** Reading invitations (list and get, each read audited) and deleting one. */
import { sql } from 'kysely';
import { withShownActors } from '../access/actor-ids.ts';
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';
import { validationError } from '../errors/catalogue.ts';
import { verifiedRows } from '../integrity/row-authenticator.ts';
import { checkPage } from '../validation/fields.ts';
import type { Invitation, InvitationStatus } from './contract.ts';
import { MAX_INVITATION_PAGE_SIZE } from './invitation-context.ts';
import type { InvitationContext } from './invitation-context.ts';
import { auditInvitation, invitationOf, loadInvitationFor } from './invitation-store.ts';

export async function listInvitations(
  context: InvitationContext,
  principal: Principal,
  filter: { status?: InvitationStatus },
  page: PageRequest,
): Promise<Page<Invitation>> {
  authorize(principal, 'tenant:invitation:read', { tenantId: principal.tenantId });
  const { vault } = context;
  const { offset, limit } = checkPage(page, MAX_INVITATION_PAGE_SIZE);
  const status = filter.status;
  if (status !== undefined && status !== 'PENDING' && status !== 'EXPIRED')
    throw validationError({ status: ['must be PENDING or EXPIRED'] });
  return vault.transaction(async (trx): Promise<Page<Invitation>> => {
    const now = vault.clock.now();
    let query = trx.selectFrom('invitations').where('tenant_id', '=', principal.tenantId);
    if (status === 'PENDING') query = query.where('expires_at', '>', now.toISOString());
    if (status === 'EXPIRED') query = query.where('expires_at', '<=', now.toISOString());
    const count = await query.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = verifiedRows(
      vault,
      'invitations',
      await query
        .selectAll()
        .orderBy('created_at')
        .orderBy(sql`rowid`)
        .limit(limit)
        .offset(offset)
        .execute(),
    );
    for (const row of rows) await auditInvitation(trx, vault, principal, row, 'read');
    return {
      total: Number(count.n),
      items: rows.map((row) => withShownActors(principal, invitationOf(row, now))),
    };
  });
}

export async function getInvitation(
  context: InvitationContext,
  principal: Principal,
  id: string,
): Promise<Invitation> {
  const { vault } = context;
  return vault.transaction(async (trx) => {
    const row = await loadInvitationFor(trx, vault, principal, ['tenant:invitation:read'], id);
    await auditInvitation(trx, vault, principal, row, 'read');
    return withShownActors(principal, invitationOf(row, vault.clock.now()));
  });
}

/** Every outstanding link of the invitation stops working. */
export async function deleteInvitation(
  context: InvitationContext,
  principal: Principal,
  id: string,
): Promise<void> {
  const { vault } = context;
  await vault.transaction(async (trx) => {
    const row = await loadInvitationFor(trx, vault, principal, ['tenant:invitation:delete'], id);
    await trx.deleteFrom('invitations').where('id', '=', row.id).execute();
    await auditInvitation(trx, vault, principal, row, 'delete');
  });
}

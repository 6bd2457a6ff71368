/**
 * How an invitation is mailed. Nothing slow runs under the vault's lock, and an SMTP conversation
 * can take seconds, so a create or resend runs in three steps: a short transaction checks the
 * request and plans the row; the e-mail is sent with no transaction open; a second short
 * transaction writes the planned row. When sending fails nothing is written: a failing SMTP server
 * leaves no invitation (create) or the old one untouched (resend). When the write fails after the
 * send (the invitation was deleted meanwhile, the address joined the tenant, the vault stopped),
 * the mail's link is simply not valid: it matches no stored secret.
 */
import type { Kysely } from 'kysely';
import { withShownActors } from '../access/actor-ids.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { VaultError } from '../errors/catalogue.ts';
import { updateAuthenticatedRow, verified, withRowMac } from '../integrity/row-authenticator.ts';
import { invitationMessage } from '../mail/invitation-mail.ts';
import type { Database } from '../storage/schema.ts';
import type { SentInvitation } from './contract.ts';
import { INVITATION_TTL_MS } from './invitation-context.ts';
import type { InvitationContext } from './invitation-context.ts';
import { generateInvitationSecret } from './invitation-secret.ts';
import { auditInvitation, invitationOf, isMemberByEmail, tenantName } from './invitation-store.ts';
import type { InvitationRow, PlannedInvitation } from './invitation-store.ts';

/**
 * What a send is about to make true: a new invitation (`create`), or a new link and expiry for an
 * existing one (`update`). `row` is the invitation as it will be stored.
 */
export interface MailPlan {
  readonly operation: 'create' | 'update';
  readonly row: PlannedInvitation;
  readonly secret: string;
  readonly tenantName: string;
  /** What the caller is told stays as it was when the mail cannot be sent. */
  readonly failure: string;
}

async function send(context: InvitationContext, plan: MailPlan): Promise<void> {
  const { mailer } = context;
  const message = invitationMessage({
    to: plan.row.email,
    tenantName: plan.tenantName,
    acceptBaseUrl: context.acceptBaseUrl(),
    secret: plan.secret,
    expiresAt: plan.row.expires_at,
  });
  try {
    await mailer.send(message);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // Never let the secret reach an error, however the transport words its failure.
    const safe = reason.split(plan.secret).join('[secret]');
    throw new VaultError(
      'MAIL_FAILED',
      `The invitation e-mail could not be sent through ${mailer.description} (${safe}). ${plan.failure}`,
      { cause: error },
    );
  }
}

/** A new link and expiry for `row`: earlier links stop working once it is written. */
export async function planRefresh(
  context: InvitationContext,
  trx: Kysely<Database>,
  principal: Principal,
  row: InvitationRow,
): Promise<MailPlan> {
  const { vault } = context;
  const now = vault.clock.now();
  const secret = generateInvitationSecret();
  return {
    operation: 'update',
    row: {
      ...row,
      // A new hash: every earlier link stops matching.
      secret_hash: vault.keyedHash('invitation', secret),
      expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      modified_by: actorOf(principal).actor_id,
      modified_at: now.toISOString(),
    },
    secret,
    tenantName: await tenantName(trx, row.tenant_id),
    failure: 'The invitation was not changed; earlier links still work.',
  };
}

/** Writes what `plan` mailed; the checks of the first step are made again, as things may have moved. */
async function commit(
  context: InvitationContext,
  trx: Kysely<Database>,
  principal: Principal,
  plan: MailPlan,
): Promise<InvitationRow> {
  const { vault } = context;
  const { row } = plan;
  const current = verified(
    vault,
    'invitations',
    plan.operation === 'update'
      ? await trx.selectFrom('invitations').selectAll().where('id', '=', row.id).executeTakeFirst()
      : await trx
          .selectFrom('invitations')
          .selectAll()
          .where('tenant_id', '=', row.tenant_id)
          .where('email', '=', row.email)
          .executeTakeFirst(),
  );
  if (plan.operation === 'update' && current === undefined) {
    throw new VaultError('NOT_FOUND', 'The invitation was deleted while its e-mail was sent.');
  }
  if (current === undefined) {
    if (await isMemberByEmail(trx, row.tenant_id, row.email))
      throw new VaultError('CONFLICT', 'A member of this tenant already has this e-mail address.');
    const stored = withRowMac(vault, 'invitations', row);
    await trx.insertInto('invitations').values(stored).execute();
    await auditInvitation(trx, vault, principal, row, 'create');
    return stored;
  }
  // A resend, or a create that met an invitation made for the same address meanwhile: the
  // address keeps one invitation, and the link just mailed is the one that works.
  const updated = await updateAuthenticatedRow(trx, vault, 'invitations', current, {
    secret_hash: row.secret_hash,
    expires_at: row.expires_at,
    modified_by: actorOf(principal).actor_id,
    modified_at: row.modified_at ?? row.created_at,
  });
  await auditInvitation(trx, vault, principal, current, 'update');
  return updated;
}

/** Plans in one transaction, mails with none open, writes in another. */
export async function mailThenWrite(
  context: InvitationContext,
  principal: Principal,
  planIn: (trx: Kysely<Database>) => Promise<MailPlan>,
): Promise<SentInvitation> {
  const { vault } = context;
  const plan = await vault.transaction(planIn);
  await send(context, plan);
  const row = await vault.transaction((trx) => commit(context, trx, principal, plan));
  return {
    ...withShownActors(principal, invitationOf(row, vault.clock.now())),
    mail: context.mailer.delivery,
  };
}

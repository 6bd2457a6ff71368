/**
 * Creating and resending invitations: both mail a new link (invitation-mailing.ts). An address
 * keeps one invitation: inviting it again resends that invitation.
 */
import { randomUUID } from 'node:crypto';
import { authorize } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { VaultError } from '../errors/catalogue.ts';
import { emailProblems, normalizeEmail } from '../identity/email.ts';
import { verified } from '../integrity/row-authenticator.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { SentInvitation } from './contract.ts';
import { INVITATION_TTL_MS } from './invitation-context.ts';
import type { InvitationContext } from './invitation-context.ts';
import { mailThenWrite, planRefresh } from './invitation-mailing.ts';
import { generateInvitationSecret } from './invitation-secret.ts';
import { isMemberByEmail, loadInvitationFor, tenantName } from './invitation-store.ts';

/**
 * Longest `email` a request may send (the API's published limit); an address the mail rules accept
 * has at most 254 characters anyway, so this only words the refusal of a longer one.
 */
const EMAIL_REQUEST_MAX = 330;

/** The invitee's address, normalized; a 400 naming `email` when it is not one. */
function checkedEmail(input: { email: string } | undefined): string {
  const errors = new FieldErrorCollector();
  const raw: unknown = input?.email;
  if (typeof raw === 'string' && raw.length > EMAIL_REQUEST_MAX)
    errors.add('email', `must be at most ${EMAIL_REQUEST_MAX} characters`);
  else for (const problem of emailProblems(raw)) errors.add('email', problem);
  errors.throwIfAny();
  return normalizeEmail(raw as string);
}

export async function createInvitation(
  context: InvitationContext,
  principal: Principal,
  input: { email: string },
): Promise<SentInvitation> {
  authorize(principal, 'tenant:invitation:create', { tenantId: principal.tenantId });
  const { vault } = context;
  const email = checkedEmail(input);
  return mailThenWrite(context, principal, async (trx) => {
    const name = await tenantName(trx, principal.tenantId);
    if (await isMemberByEmail(trx, principal.tenantId, email))
      throw new VaultError('CONFLICT', 'A member of this tenant already has this e-mail address.');
    const existing = verified(
      vault,
      'invitations',
      await trx
        .selectFrom('invitations')
        .selectAll()
        .where('tenant_id', '=', principal.tenantId)
        .where('email', '=', email)
        .executeTakeFirst(),
    );
    // One invitation per address: inviting the address again resends that invitation (new
    // link and expiry; earlier links stop working), so the invitee holds one working link.
    if (existing) return planRefresh(context, trx, principal, existing);
    const now = vault.clock.now();
    const secret = generateInvitationSecret();
    return {
      operation: 'create',
      row: {
        id: randomUUID(),
        tenant_id: principal.tenantId,
        email,
        secret_hash: vault.keyedHash('invitation', secret),
        expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
        created_by: actorOf(principal).actor_id,
        created_at: now.toISOString(),
        modified_by: null,
        modified_at: null,
      },
      secret,
      tenantName: name,
      failure: 'No invitation was created.',
    };
  });
}

/** A new link and expiry, mailed again; earlier links stop working. */
export async function resendInvitation(
  context: InvitationContext,
  principal: Principal,
  id: string,
): Promise<SentInvitation> {
  return mailThenWrite(context, principal, async (trx) => {
    const row = await loadInvitationFor(
      trx,
      context.vault,
      principal,
      ['tenant:invitation:create', 'tenant:invitation:update'],
      id,
    );
    return planRefresh(context, trx, principal, row);
  });
}

/**
 * `InvitationService` (contract.ts) over one open vault: tenant invitations by e-mail. Each
 * operation lives in the module of its kind (invitation-create.ts: create and resend, mailed as
 * invitation-mailing.ts describes; invitation-list.ts: list, get, delete; invitation-accept.ts) and
 * takes the service's InvitationContext (invitation-context.ts).
 */
import type { VaultHandle } from '../vault/types.ts';
import type { InvitationService } from './contract.ts';
import { acceptInvitation } from './invitation-accept.ts';
import type { InvitationContext, InvitationServiceOptions } from './invitation-context.ts';
import { createInvitation, resendInvitation } from './invitation-create.ts';
import { deleteInvitation, getInvitation, listInvitations } from './invitation-list.ts';

// The limits callers name (the invitations route, the CLI's list, tests), beside the service.
export { INVITATION_TTL_MS, MAX_INVITATION_PAGE_SIZE } from './invitation-context.ts';
export type { InvitationServiceOptions } from './invitation-context.ts';

export function createInvitationService(
  vault: VaultHandle,
  options: InvitationServiceOptions,
): InvitationService {
  const context: InvitationContext = { ...options, vault };
  return {
    create: (principal, input) => createInvitation(context, principal, input),
    list: (principal, filter, page) => listInvitations(context, principal, filter, page),
    get: (principal, id) => getInvitation(context, principal, id),
    resend: (principal, id) => resendInvitation(context, principal, id),
    delete: (principal, id) => deleteInvitation(context, principal, id),
    accept: (input) => acceptInvitation(context, input),
  };
}

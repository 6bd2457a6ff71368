import type { Command } from 'commander';
import { confirmDestructive } from '../../program/confirmation.ts';
import type { Runner } from '../../program/command-kit.ts';
import { newByIdDeleteCommand, reportDeleted } from '../../program/deletion.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { inTenant, invitationIdOptionsFrom, type InvitationIdOptions } from './common.ts';
import { INVITATION_ID_HELP } from './format.ts';
import { noInvitation, orNotFound } from '../../tenancy/tenant-scope.ts';

export interface InvitationDeleteOptions extends InvitationIdOptions {
  readonly yes: boolean;
}

export function newInvitationDeleteCommand(
  deps: CliDeps,
  run: Runner<InvitationDeleteOptions> = (o) => runInvitationDelete(deps, o),
): Command {
  return newByIdDeleteCommand(
    deps,
    {
      action: 'deleting an invitation',
      description: 'Delete an invitation; its links stop working at once',
      argument: '<invitation-id>',
      help: INVITATION_ID_HELP,
      optionsFrom: invitationIdOptionsFrom,
    },
    run,
  );
}

export async function runInvitationDelete(deps: CliDeps, options: InvitationDeleteOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  const deleted = await inTenant(
    deps,
    resolved,
    options.key,
    options.tenant,
    async ({ services, principal }) => {
      const invitation = await orNotFound(noInvitation(options.invitationId), () =>
        services.invitations.get(principal, options.invitationId),
      );
      await confirmDestructive(deps, options.yes, {
        question: `Delete the invitation of ${invitation.email}? Its links stop working.`,
        unchanged: 'the invitation was left as it is',
      });
      await services.invitations.delete(principal, invitation.id);
      return invitation;
    },
  );
  reportDeleted(
    deps,
    options.json,
    { id: deleted.id, tenant_id: deleted.tenant_id },
    `Deleted invitation ${deleted.id} (${deleted.email})`,
  );
}

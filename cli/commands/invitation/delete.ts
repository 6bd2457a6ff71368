import { Command } from 'commander';
import { confirmOrCancel, requireYes } from '../../ask.ts';
import { commandOf, type Runner } from '../../command-kit.ts';
import { loadConfig } from '../../context.ts';
import type { CliDeps } from '../../deps.ts';
import { addJsonOption, addTenantOption, addVaultOptions } from '../../options.ts';
import { writeJson, writeLine } from '../../output.ts';
import { inTenant, invitationIdOptionsFrom, type InvitationIdOptions } from './common.ts';
import { INVITATION_ID_HELP } from './format.ts';
import { noInvitation, orNotFound } from '../../tenant-scope.ts';

export interface InvitationDeleteOptions extends InvitationIdOptions {
  readonly yes: boolean;
}

export function newInvitationDeleteCommand(
  deps: CliDeps,
  run: Runner<InvitationDeleteOptions> = (o) => runInvitationDelete(deps, o),
): Command {
  const command = new Command('delete')
    .description('Delete an invitation; its links stop working at once')
    .argument('<invitation-id>', INVITATION_ID_HELP)
    .option('-y, --yes', 'delete without asking (needed when not on a terminal)');
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  addJsonOption(command);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<{ yes?: boolean }>();
    await run({ ...invitationIdOptionsFrom(args), yes: raw.yes === true });
  });
}

export async function runInvitationDelete(deps: CliDeps, options: InvitationDeleteOptions): Promise<void> {
  requireYes(deps, options.yes, 'deleting an invitation');
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
      await confirmOrCancel(
        deps,
        options.yes,
        `Delete the invitation of ${invitation.email}? Its links stop working.`,
        'the invitation was left as it is',
      );
      await services.invitations.delete(principal, invitation.id);
      return invitation;
    },
  );
  if (options.json) {
    writeJson(deps.stdout, { id: deleted.id, tenant_id: deleted.tenant_id, deleted: true });
    return;
  }
  writeLine(deps.stdout, `Deleted invitation ${deleted.id} (${deleted.email})`);
}

import { Command } from 'commander';
import { type Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { addVaultOptions } from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { MAIL_HELP } from './create.ts';
import { invitationIdOptionsFrom, sendInvitation, type InvitationIdOptions } from './common.ts';
import { INVITATION_ID_HELP } from './format.ts';
import { noInvitation, orNotFound } from '../../tenancy/tenant-scope.ts';

export function newInvitationResendCommand(
  deps: CliDeps,
  run: Runner<InvitationIdOptions> = (o) => runInvitationResend(deps, o),
): Command {
  const command = new Command('resend')
    .description('Send an invitation again with a new link valid for 72 hours; earlier links stop working')
    .argument('<invitation-id>', INVITATION_ID_HELP);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  command.addHelpText('after', MAIL_HELP);
  return command.action(async (...args: unknown[]) => {
    await run(invitationIdOptionsFrom(args));
  });
}

export async function runInvitationResend(deps: CliDeps, options: InvitationIdOptions): Promise<void> {
  await sendInvitation(
    deps,
    options,
    ({ services, principal }) =>
      orNotFound(noInvitation(options.invitationId), () =>
        services.invitations.resend(principal, options.invitationId),
      ),
    (invitation) => `Resent invitation ${invitation.id} (${invitation.email}); earlier links no longer work`,
  );
}

import { Command } from 'commander';
import { tenancyOptionsFrom } from '../../services/tenancy-options.ts';
import { type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { addVaultOptions } from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { MAIL_HELP } from './create.ts';
import { inTenant, invitationIdOptionsFrom, type InvitationIdOptions } from './common.ts';
import { INVITATION_ID_HELP, invitationWithDelivery, withDelivery, writeDelivery } from './format.ts';
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
  const resolved = await loadConfig(deps, options.config);
  const admin = tenancyOptionsFrom(resolved.config);
  const { result: invitation, delivery } = await inTenant(
    deps,
    resolved,
    options.key,
    options.tenant,
    ({ services, principal }) =>
      orNotFound(noInvitation(options.invitationId), () =>
        withDelivery(admin, () => services.invitations.resend(principal, options.invitationId)),
      ),
  );
  if (options.json) {
    writeJson(deps.stdout, invitationWithDelivery(invitation, delivery));
    return;
  }
  writeLine(
    deps.stdout,
    `Resent invitation ${invitation.id} (${invitation.email}); earlier links no longer work`,
  );
  writeLine(deps.stdout, `Expires: ${invitation.expires_at}`);
  writeDelivery(deps, invitation.email, delivery);
}

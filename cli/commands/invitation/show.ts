import { Command } from 'commander';
import { type Runner } from '../../program/command-kit.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { addVaultOptions } from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { invitationIdOptionsFrom, type InvitationIdOptions } from './common.ts';
import { INVITATION_ID_HELP, invitationEntries } from './format.ts';
import { withServices } from '../../services/with-services.ts';
import { findInTenants, noInvitation } from '../../tenancy/tenant-scope.ts';

export function newInvitationShowCommand(
  deps: CliDeps,
  run: Runner<InvitationIdOptions> = (o) => runInvitationShow(deps, o),
): Command {
  const command = new Command('show')
    .description('Show an invitation: e-mail, status, expiry (never its link)')
    .argument('<invitation-id>', INVITATION_ID_HELP);
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  return command.action(async (...args: unknown[]) => {
    await run(invitationIdOptionsFrom(args));
  });
}

export async function runInvitationShow(deps: CliDeps, options: InvitationIdOptions): Promise<void> {
  const resolved = await loadConfig(deps, options.config);
  // An invitation id names its tenant: without --tenant every tenant is searched.
  const invitation = await withServices(deps, resolved, options.key, (services) =>
    findInTenants(
      services,
      options.tenant,
      (principal) => services.invitations.get(principal, options.invitationId),
      options.tenant === undefined
        ? `no invitation ${options.invitationId} in this vault (see 'svc invitation list')`
        : noInvitation(options.invitationId),
    ),
  );
  if (options.json) writeJson(deps.stdout, invitation);
  else writeRecord(deps, invitationEntries(invitation));
}

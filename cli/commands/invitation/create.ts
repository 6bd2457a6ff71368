import { Command } from 'commander';
import { requireUnlessTTY, valueOrPrompt } from '../../prompts/ask.ts';
import { commandOf, type Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addVaultOptions,
  vaultOptionsFrom,
  type RawOptions,
  type VaultCommandOptions,
} from '../../options/config-flags.ts';
import { addTenantOption } from '../../options/tenant.ts';
import { sendInvitation } from './common.ts';

export interface InvitationCreateOptions extends VaultCommandOptions {
  readonly tenant: string | undefined;
  readonly email: string | undefined;
}

export const MAIL_HELP = `
The mail goes through SVC_SMTP_URL when set, else it is written as an .eml file to <home>/outbox
(the path is printed). Its link is SVC_PUBLIC_URL (default http://127.0.0.1:<port>)
+ /invitations/accept?token=…; the link is never printed.`;

export function newInvitationCreateCommand(
  deps: CliDeps,
  run: Runner<InvitationCreateOptions> = (o) => runInvitationCreate(deps, o),
): Command {
  const command = new Command('create')
    .description('Invite someone by e-mail to become an ADMIN member (the link is valid for 72 hours)')
    .option('--email <email>', 'address to invite (asked on a terminal when missing)');
  addTenantOption(command, deps);
  addVaultOptions(command, deps);
  command.addHelpText('after', MAIL_HELP);
  return command.action(async (...args: unknown[]) => {
    const raw = commandOf(args).opts<RawOptions & { tenant?: string; email?: string }>();
    await run({ ...vaultOptionsFrom(raw), tenant: raw.tenant, email: raw.email });
  });
}

export async function runInvitationCreate(deps: CliDeps, options: InvitationCreateOptions): Promise<void> {
  requireUnlessTTY(deps, { '--email': options.email });
  await sendInvitation(
    deps,
    options,
    async ({ services, principal }) => {
      const email = await valueOrPrompt(deps, options.email, '--email', 'E-mail to invite:');
      return services.invitations.create(principal, { email });
    },
    (invitation) => `Invitation: ${invitation.id} (${invitation.email}, ${invitation.status})`,
  );
}

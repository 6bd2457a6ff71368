import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newInvitationAcceptCommand } from './accept.ts';
import { newInvitationCreateCommand } from './create.ts';
import { newInvitationDeleteCommand } from './delete.ts';
import { newInvitationListCommand } from './list.ts';
import { newInvitationResendCommand } from './resend.ts';
import { newInvitationShowCommand } from './show.ts';

export function newInvitationCommand(deps: CliDeps): Command {
  return new Command('invitation')
    .description('Invite people by e-mail to a tenant, and accept invitations')
    .addCommand(newInvitationCreateCommand(deps))
    .addCommand(newInvitationListCommand(deps))
    .addCommand(newInvitationShowCommand(deps))
    .addCommand(newInvitationResendCommand(deps))
    .addCommand(newInvitationDeleteCommand(deps))
    .addCommand(newInvitationAcceptCommand(deps));
}

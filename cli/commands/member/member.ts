import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newMemberListCommand } from './list.ts';
import { newMemberRemoveCommand } from './remove.ts';
import { newMemberUpdateCommand } from './update.ts';

export function newMemberCommand(deps: CliDeps): Command {
  return new Command('member')
    .description("List, update and remove a tenant's members (new members join through 'svc invitation')")
    .addCommand(newMemberListCommand(deps))
    .addCommand(newMemberUpdateCommand(deps))
    .addCommand(newMemberRemoveCommand(deps));
}

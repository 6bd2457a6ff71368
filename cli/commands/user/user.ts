import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newUserPasswdCommand } from './passwd.ts';

export function newUserCommand(deps: CliDeps): Command {
  return new Command('user')
    .description('Manage the people who sign in to the console')
    .addCommand(newUserPasswdCommand(deps));
}

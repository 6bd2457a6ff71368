import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newAuthLoginCommand } from './login.ts';
import { newAuthLogoutCommand } from './logout.ts';
import { newAuthStatusCommand } from './status.ts';

export function newAuthCommand(deps: CliDeps): Command {
  return new Command('auth')
    .description(
      'Sign in to a server as a member (e-mail and password) for --server, see who is signed in, sign out',
    )
    .addCommand(newAuthLoginCommand(deps))
    .addCommand(newAuthStatusCommand(deps))
    .addCommand(newAuthLogoutCommand(deps));
}

import { Command } from 'commander';
import type { CliDeps } from '../../deps.ts';
import { newAppListCommand } from './list.ts';
import { newAppRegenerateCommand } from './regenerate.ts';

export function newAppCommand(deps: CliDeps): Command {
  return new Command('app')
    .description('Manage applications and their API keys')
    .addCommand(newAppListCommand(deps))
    .addCommand(newAppRegenerateCommand(deps));
}

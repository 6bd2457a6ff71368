import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newAppCreateCommand } from './create.ts';
import { newAppDeleteCommand } from './delete.ts';
import { newAppListCommand } from './list.ts';
import { newAppRegenerateCommand } from './regenerate.ts';
import { newAppShowCommand } from './show.ts';
import { newAppUpdateCommand } from './update.ts';

export function newAppCommand(deps: CliDeps): Command {
  return new Command('app')
    .description('Manage applications and their API keys')
    .addCommand(newAppCreateCommand(deps))
    .addCommand(newAppListCommand(deps))
    .addCommand(newAppShowCommand(deps))
    .addCommand(newAppUpdateCommand(deps))
    .addCommand(newAppDeleteCommand(deps))
    .addCommand(newAppRegenerateCommand(deps));
}

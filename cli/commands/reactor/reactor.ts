import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newReactorCreateCommand } from './create.ts';
import { newReactorDeleteCommand } from './delete.ts';
import { newReactorListCommand } from './list.ts';
import { newReactorReactCommand } from './react.ts';
import { newReactorShowCommand } from './show.ts';
import { newReactorUpdateCommand } from './update.ts';

export function newReactorCommand(deps: CliDeps): Command {
  return new Command('reactor')
    .description('Manage and invoke reactors')
    .addCommand(newReactorCreateCommand(deps))
    .addCommand(newReactorListCommand(deps))
    .addCommand(newReactorShowCommand(deps))
    .addCommand(newReactorUpdateCommand(deps))
    .addCommand(newReactorDeleteCommand(deps))
    .addCommand(newReactorReactCommand(deps));
}

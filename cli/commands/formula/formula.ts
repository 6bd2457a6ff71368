import { Command } from 'commander';
import type { CliDeps } from '../../runtime/deps.ts';
import { newFormulaCreateCommand } from './create.ts';
import { newFormulaDeleteCommand } from './delete.ts';
import { newFormulaListCommand } from './list.ts';
import { newFormulaShowCommand } from './show.ts';
import { newFormulaUpdateCommand } from './update.ts';

export function newFormulaCommand(deps: CliDeps): Command {
  return new Command('formula')
    .description('Manage reactor formulas (JavaScript run by reactors)')
    .addCommand(newFormulaCreateCommand(deps))
    .addCommand(newFormulaListCommand(deps))
    .addCommand(newFormulaShowCommand(deps))
    .addCommand(newFormulaUpdateCommand(deps))
    .addCommand(newFormulaDeleteCommand(deps));
}

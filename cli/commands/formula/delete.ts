import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import { reportDeleted } from '../../program/deletion.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { addReactorScopeOptions, withReactors } from '../reactor/common.ts';
import { FORMULA_ID_HELP } from './common.ts';
import { formulaIdOptionsFrom, type FormulaIdOptions } from './show.ts';

export interface FormulaDeleteOptions extends FormulaIdOptions {
  readonly yes: boolean;
}

export function newFormulaDeleteCommand(
  deps: CliDeps,
  run: Runner<FormulaDeleteOptions> = (o) => runFormulaDelete(deps, o),
): Command {
  const command = new Command('delete')
    .description('Delete a private formula (refused while reactors use it)')
    .argument('<formula-id>', FORMULA_ID_HELP);
  markDestructive(command, 'deleting a formula', { verb: 'delete' });
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) =>
    run({ ...formulaIdOptionsFrom(args), yes: yesFrom(args) }),
  );
}

export async function runFormulaDelete(deps: CliDeps, options: FormulaDeleteOptions): Promise<void> {
  await withReactors(deps, options, async (services, principal) => {
    const formula = await services.reactors.getFormula(principal, options.formulaId);
    await confirmDestructive(deps, options.yes, {
      question: `Delete formula ${formula.name} (${formula.id})?`,
      unchanged: 'the formula was left as it is',
    });
    await services.reactors.deleteFormula(principal, formula.id);
  });
  reportDeleted(deps, options.json, { id: options.formulaId }, `Deleted formula ${options.formulaId}`);
}

import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { withReactors } from '../reactor/common.ts';
import {
  FORMULA_ID_HELP,
  formulaFieldsAction,
  formulaInput,
  printSavedFormula,
  type FormulaFieldsOptions,
} from './common.ts';

export interface FormulaUpdateOptions extends FormulaFieldsOptions {
  readonly formulaId: string;
}

export function newFormulaUpdateCommand(
  deps: CliDeps,
  run: Runner<FormulaUpdateOptions> = (o) => runFormulaUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description('Update a private formula; fields not given keep their value')
    .argument('<formula-id>', FORMULA_ID_HELP);
  return formulaFieldsAction(command, deps, (scope, fields, args) =>
    run({ ...scope, formulaId: String(args[0]), fields }),
  );
}

export async function runFormulaUpdate(deps: CliDeps, options: FormulaUpdateOptions): Promise<void> {
  const id = options.formulaId;
  const updated = await withReactors(deps, options, async (services, principal) => {
    const current = await services.reactors.getFormula(principal, id);
    return services.reactors.updateFormula(principal, id, await formulaInput(deps, options.fields, current));
  });
  printSavedFormula(deps, options, updated);
}

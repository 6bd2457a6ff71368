import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { withReactors } from '../reactor/common.ts';
import { formulaFieldsAction, formulaInput, printSavedFormula, type FormulaFieldsOptions } from './common.ts';

export type FormulaCreateOptions = FormulaFieldsOptions;

export function newFormulaCreateCommand(
  deps: CliDeps,
  run: Runner<FormulaCreateOptions> = (o) => runFormulaCreate(deps, o),
): Command {
  return formulaFieldsAction(
    new Command('create').description('Create a private reactor formula'),
    deps,
    (scope, fields) => run({ ...scope, fields }),
  );
}

export async function runFormulaCreate(deps: CliDeps, options: FormulaCreateOptions): Promise<void> {
  // Read before the vault is opened: a bad file or flag costs nothing.
  const input = await formulaInput(deps, options.fields);
  const created = await withReactors(deps, options, (services, principal) =>
    services.reactors.createFormula(principal, input),
  );
  printSavedFormula(deps, options, created);
}

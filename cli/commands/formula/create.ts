import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addReactorScopeOptions,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from '../reactor/common.ts';
import {
  addFormulaFieldOptions,
  formulaFieldsFrom,
  formulaInput,
  printSavedFormula,
  type FormulaFields,
  type RawFormulaFields,
} from './common.ts';

export interface FormulaCreateOptions extends ReactorScopeOptions {
  readonly fields: FormulaFields;
}

export function newFormulaCreateCommand(
  deps: CliDeps,
  run: Runner<FormulaCreateOptions> = (o) => runFormulaCreate(deps, o),
): Command {
  const command = addFormulaFieldOptions(
    new Command('create').description('Create a private reactor formula'),
  );
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<RawFormulaFields>(args);
    await run({ ...scope, fields: formulaFieldsFrom(raw) });
  });
}

export async function runFormulaCreate(deps: CliDeps, options: FormulaCreateOptions): Promise<void> {
  // Read before the vault is opened: a bad file or flag costs nothing.
  const input = await formulaInput(deps, options.fields);
  const created = await withReactors(deps, options, (services, principal) =>
    services.reactors.createFormula(principal, input),
  );
  printSavedFormula(deps, options, created);
}

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
  FORMULA_ID_HELP,
  addFormulaFieldOptions,
  formulaFieldsFrom,
  formulaInput,
  printSavedFormula,
  type FormulaFields,
  type RawFormulaFields,
} from './common.ts';

export interface FormulaUpdateOptions extends ReactorScopeOptions {
  readonly formulaId: string;
  readonly fields: FormulaFields;
}

export function newFormulaUpdateCommand(
  deps: CliDeps,
  run: Runner<FormulaUpdateOptions> = (o) => runFormulaUpdate(deps, o),
): Command {
  const command = addFormulaFieldOptions(
    new Command('update')
      .description('Update a private formula; fields not given keep their value')
      .argument('<formula-id>', FORMULA_ID_HELP),
  );
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<RawFormulaFields>(args);
    await run({ ...scope, formulaId: String(args[0]), fields: formulaFieldsFrom(raw) });
  });
}

export async function runFormulaUpdate(deps: CliDeps, options: FormulaUpdateOptions): Promise<void> {
  const id = options.formulaId;
  const updated = await withReactors(deps, options, async (services, principal) => {
    const current = await services.reactors.getFormula(principal, id);
    return services.reactors.updateFormula(principal, id, await formulaInput(deps, options.fields, current));
  });
  printSavedFormula(deps, options, updated);
}

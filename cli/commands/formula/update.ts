import { Command } from 'commander';
import type { ReactorFormula } from '../../../core/reactors/contract.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import type { FormulaInput } from '../../services/contract.ts';
import {
  addReactorScopeOptions,
  jsonArrayFlag,
  reactorScopeFrom,
  readCodeFile,
  withReactors,
  type ReactorScopeOptions,
} from '../reactor/common.ts';
import {
  FORMULA_ID_HELP,
  addFormulaFieldOptions,
  formulaFieldsFrom,
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

/** The whole formula to save (an update replaces it): the flags given, else what it has now. */
async function updatedInput(
  deps: CliDeps,
  fields: FormulaFields,
  current: ReactorFormula,
): Promise<FormulaInput> {
  return {
    name: fields.name ?? current.name,
    description: fields.description ?? current.description ?? undefined,
    type: 'private',
    status: fields.status ?? current.status,
    icon: current.icon ?? undefined,
    code: fields.codeFile === undefined ? current.code : await readCodeFile(deps, fields.codeFile),
    configuration:
      (await jsonArrayFlag(deps, fields.configuration, '--configuration')) ?? current.configuration,
    request_parameters:
      (await jsonArrayFlag(deps, fields.requestParameters, '--request-parameters')) ??
      current.request_parameters,
  };
}

export async function runFormulaUpdate(deps: CliDeps, options: FormulaUpdateOptions): Promise<void> {
  const id = options.formulaId;
  const updated = await withReactors(deps, options, async (services, principal) => {
    const current = await services.reactors.getFormula(principal, id);
    return services.reactors.updateFormula(principal, id, await updatedInput(deps, options.fields, current));
  });
  printSavedFormula(deps, options, updated);
}

import { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
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
  addFormulaFieldOptions,
  formulaFieldsFrom,
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
  const { fields } = options;
  if (fields.name === undefined || fields.codeFile === undefined) {
    throw new VaultError('USAGE', 'a formula needs --name and --code-file');
  }
  // Read before the vault is opened: a bad file or flag costs nothing.
  const input: FormulaInput = {
    name: fields.name,
    description: fields.description,
    type: 'private',
    status: fields.status,
    code: await readCodeFile(deps, fields.codeFile),
    configuration: (await jsonArrayFlag(deps, fields.configuration, '--configuration')) ?? [],
    request_parameters: (await jsonArrayFlag(deps, fields.requestParameters, '--request-parameters')) ?? [],
  };
  const created = await withReactors(deps, options, (services, principal) =>
    services.reactors.createFormula(principal, input),
  );
  printSavedFormula(deps, options, created);
}

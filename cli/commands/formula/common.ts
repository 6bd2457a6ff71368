import type { Command } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { ReactorFormula, SavedFormula } from '../../../core/reactors/contract.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeRecord } from '../../output/table.ts';
import { colours, writeJson, writeLine } from '../../output/write.ts';
import type { FormulaInput } from '../../services/contract.ts';
import {
  addReactorScopeOptions,
  jsonArrayFlag,
  reactorScopeFrom,
  readCodeFile,
  type ReactorScopeOptions,
} from '../reactor/common.ts';

export const FORMULA_ID_HELP = "the formula's id (see 'svc formula list')";

/** Fields of a formula given on the command line; update keeps what is not given. */
export interface FormulaFields {
  readonly name?: string;
  readonly description?: string;
  readonly status?: string;
  readonly codeFile?: string;
  readonly configuration?: string;
  readonly requestParameters?: string;
}

const FIELDS_HELP = `
--configuration and --request-parameters take JSON arrays, e.g.
  --configuration '[{"name":"API_KEY","type":"string"}]'
  --request-parameters '[{"name":"card.number","type":"string"},{"name":"note","type":"string","optional":true}]'
The code is CommonJS: module.exports = async function (req) { return { raw: …, tokenize: … }; };`;

function addFormulaFieldOptions(command: Command): Command {
  return command
    .option('--name <name>', 'formula name (at most 200 characters)')
    .option('--description <text>', 'description')
    .option('--status <status>', 'verified (default) or coming_soon')
    .option('--code-file <file>', 'file with the JavaScript code (- for standard input)')
    .option('--configuration <json>', 'configuration contract (JSON array)')
    .option('--request-parameters <json>', 'request parameter contract (JSON array)')
    .addHelpText('after', FIELDS_HELP);
}

/** The raw values of the field options (commander's names). */
type RawFormulaFields = FormulaFields;

/** The options of formula create and update: the scope and the formula's fields. */
export interface FormulaFieldsOptions extends ReactorScopeOptions {
  readonly fields: FormulaFields;
}

function formulaFieldsFrom(raw: RawFormulaFields): FormulaFields {
  return {
    name: raw.name,
    description: raw.description,
    status: raw.status,
    codeFile: raw.codeFile,
    configuration: raw.configuration,
    requestParameters: raw.requestParameters,
  };
}

/**
 * Formula create and update: adds the field options and the scope's to `command`, and an action
 * that hands `act` the parsed scope, the fields and the positional arguments.
 */
export function formulaFieldsAction(
  command: Command,
  deps: CliDeps,
  act: (scope: ReactorScopeOptions, fields: FormulaFields, args: readonly unknown[]) => Promise<void>,
): Command {
  return addReactorScopeOptions(addFormulaFieldOptions(command), deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<RawFormulaFields>(args);
    await act(scope, formulaFieldsFrom(raw), args);
  });
}

/**
 * The whole formula to save (an update replaces it): the flags given, else what `current` has. A
 * new formula (no `current`) needs its name and code from the flags.
 */
export async function formulaInput(
  deps: CliDeps,
  fields: FormulaFields,
  current?: ReactorFormula,
): Promise<FormulaInput> {
  const missing = new VaultError('USAGE', 'a formula needs --name and --code-file');
  const name = fields.name ?? current?.name;
  if (name === undefined || (fields.codeFile === undefined && current === undefined)) throw missing;
  const code = fields.codeFile === undefined ? current?.code : await readCodeFile(deps, fields.codeFile);
  if (code === undefined) throw missing;
  return {
    name,
    description: fields.description ?? current?.description ?? undefined,
    type: 'private',
    status: fields.status ?? current?.status,
    icon: current?.icon ?? undefined,
    code,
    configuration:
      (await jsonArrayFlag(deps, fields.configuration, '--configuration')) ?? current?.configuration ?? [],
    request_parameters:
      (await jsonArrayFlag(deps, fields.requestParameters, '--request-parameters')) ??
      current?.request_parameters ??
      [],
  };
}

export function formulaEntries(formula: ReactorFormula): Array<[string, string]> {
  return [
    ['ID', formula.id],
    ['Name', formula.name],
    ['Type', formula.type],
    ['Status', formula.status],
    ['Description', formula.description ?? ''],
    ['Configuration', formula.configuration.map((s) => `${s.name}: ${s.type}`).join(', ')],
    [
      'Request parameters',
      formula.request_parameters
        .map((p) => `${p.name}: ${p.type}${p.optional ? ' (optional)' : ''}`)
        .join(', '),
    ],
    ['Code', `${formula.code.split('\n').length} lines (--json shows it)`],
    ['Created', formula.created_at],
  ];
}

/** A formula: JSON under --json, else a record. */
export function printFormula(deps: CliDeps, options: ReactorScopeOptions, formula: ReactorFormula): void {
  if (options.json) writeJson(deps.stdout, formula);
  else writeRecord(deps, formulaEntries(formula));
}

/** The formula saved, and on standard error why its code will fail at invocation (with its line). */
export function printSavedFormula(deps: CliDeps, options: ReactorScopeOptions, saved: SavedFormula): void {
  printFormula(deps, options, saved.formula);
  const { yellow } = colours(deps, deps.stderr);
  for (const warning of saved.warnings) writeLine(deps.stderr, `${yellow('warning:')} ${warning.detail}`);
}

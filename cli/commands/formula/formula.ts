import { Command } from 'commander';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { ReactorFormula, ReactorFormulaInput, SavedFormula } from '../../../core/reactors/contract.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { reportDeleted } from '../../program/deletion.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeRecord, writeTable } from '../../output/table.ts';
import { colours, writeJson, writeLine } from '../../output/write.ts';
import {
  addReactorScopeOptions,
  allPages,
  formulaEntries,
  jsonFlag,
  reactorScopeFrom,
  readCodeFile,
  withReactors,
  type ReactorScopeOptions,
} from '../reactor/common.ts';

/** Fields of a formula given on the command line; update keeps what is not given. */
export interface FormulaFields {
  readonly name?: string;
  readonly description?: string;
  readonly status?: string;
  readonly codeFile?: string;
  readonly configuration?: string;
  readonly requestParameters?: string;
}

export interface FormulaWriteOptions extends ReactorScopeOptions {
  readonly formulaId?: string;
  readonly fields: FormulaFields;
}

export interface FormulaIdOptions extends ReactorScopeOptions {
  readonly formulaId: string;
  readonly yes: boolean;
}

const FIELDS_HELP = `
--configuration and --request-parameters take JSON arrays, e.g.
  --configuration '[{"name":"API_KEY","type":"string"}]'
  --request-parameters '[{"name":"card.number","type":"string"},{"name":"note","type":"string","optional":true}]'
The code is CommonJS: module.exports = async function (req) { return { raw: …, tokenize: … }; };`;

function addFieldOptions(command: Command): Command {
  return command
    .option('--name <name>', 'formula name (at most 200 characters)')
    .option('--description <text>', 'description')
    .option('--status <status>', 'verified (default) or coming_soon')
    .option('--code-file <file>', 'file with the JavaScript code (- for standard input)')
    .option('--configuration <json>', 'configuration contract (JSON array)')
    .option('--request-parameters <json>', 'request parameter contract (JSON array)')
    .addHelpText('after', FIELDS_HELP);
}

function fieldsFrom(raw: Record<string, unknown>): FormulaFields {
  const text = (key: string) => (typeof raw[key] === 'string' ? (raw[key] as string) : undefined);
  return {
    name: text('name'),
    description: text('description'),
    status: text('status'),
    codeFile: text('codeFile'),
    configuration: text('configuration'),
    requestParameters: text('requestParameters'),
  };
}

async function bodyOf(
  deps: CliDeps,
  fields: FormulaFields,
  base?: ReactorFormula,
): Promise<ReactorFormulaInput> {
  return {
    name: fields.name ?? base?.name,
    description: fields.description ?? base?.description ?? undefined,
    type: 'private',
    status: fields.status ?? base?.status,
    icon: base?.icon ?? undefined,
    code: fields.codeFile === undefined ? base?.code : await readCodeFile(deps, fields.codeFile),
    configuration:
      (await jsonFlag(deps, fields.configuration, '--configuration')) ?? base?.configuration ?? [],
    request_parameters:
      (await jsonFlag(deps, fields.requestParameters, '--request-parameters')) ??
      base?.request_parameters ??
      [],
  };
}

function print(deps: CliDeps, options: ReactorScopeOptions, formula: ReactorFormula): void {
  if (options.json) writeJson(deps.stdout, formula);
  else writeRecord(deps, formulaEntries(formula));
}

/** The formula saved, and on standard error why its code will fail at invocation (with its line). */
function printSaved(deps: CliDeps, options: ReactorScopeOptions, saved: SavedFormula): void {
  print(deps, options, saved.formula);
  const { yellow } = colours(deps, deps.stderr);
  for (const warning of saved.warnings) writeLine(deps.stderr, `${yellow('warning:')} ${warning.detail}`);
}

export async function runFormulaCreate(deps: CliDeps, options: FormulaWriteOptions): Promise<void> {
  if (options.fields.name === undefined || options.fields.codeFile === undefined) {
    throw new VaultError('USAGE', 'a formula needs --name and --code-file');
  }
  const body = await bodyOf(deps, options.fields);
  const created = await withReactors(deps, options, (services, principal) =>
    services.reactors.createFormula(principal, body),
  );
  printSaved(deps, options, created);
}

export async function runFormulaUpdate(deps: CliDeps, options: FormulaWriteOptions): Promise<void> {
  const id = options.formulaId as string;
  const updated = await withReactors(deps, options, async (services, principal) => {
    const current = await services.reactors.getFormula(principal, id);
    return services.reactors.updateFormula(principal, id, await bodyOf(deps, options.fields, current));
  });
  printSaved(deps, options, updated);
}

export async function runFormulaList(
  deps: CliDeps,
  options: ReactorScopeOptions & { name?: string },
): Promise<void> {
  const formulas = await withReactors(deps, options, (services, principal) =>
    allPages((page) => services.reactors.listFormulas(principal, { name: options.name }, page)),
  );
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(formulas));
    return;
  }
  writeTable(
    deps,
    ['ID', 'NAME', 'TYPE', 'STATUS'],
    formulas.map((f) => [f.id, f.name, f.type, f.status]),
  );
}

export async function runFormulaShow(deps: CliDeps, options: FormulaIdOptions): Promise<void> {
  const formula = await withReactors(deps, options, (services, principal) =>
    services.reactors.getFormula(principal, options.formulaId),
  );
  print(deps, options, formula);
}

export async function runFormulaDelete(deps: CliDeps, options: FormulaIdOptions): Promise<void> {
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

export interface FormulaRunners {
  readonly create: Runner<FormulaWriteOptions>;
  readonly update: Runner<FormulaWriteOptions>;
  readonly list: Runner<ReactorScopeOptions & { name?: string }>;
  readonly show: Runner<FormulaIdOptions>;
  readonly delete: Runner<FormulaIdOptions>;
}

export function newFormulaCommand(deps: CliDeps, runners: Partial<FormulaRunners> = {}): Command {
  const r: FormulaRunners = {
    create: (o) => runFormulaCreate(deps, o),
    update: (o) => runFormulaUpdate(deps, o),
    list: (o) => runFormulaList(deps, o),
    show: (o) => runFormulaShow(deps, o),
    delete: (o) => runFormulaDelete(deps, o),
    ...runners,
  };
  const create = addFieldOptions(new Command('create').description('Create a private reactor formula'));
  addReactorScopeOptions(create, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    await r.create({ ...scope, fields: fieldsFrom(scope.raw) });
  });
  const update = addFieldOptions(
    new Command('update')
      .description('Update a private formula; fields not given keep their value')
      .argument('<formula-id>', "the formula's id (see 'svc formula list')"),
  );
  addReactorScopeOptions(update, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    await r.update({ ...scope, formulaId: String(args[0]), fields: fieldsFrom(scope.raw) });
  });
  const list = new Command('list')
    .description('List the official formulas and the tenant private ones')
    .option('--name <pattern>', 'only names matching (* is a wildcard)');
  addReactorScopeOptions(list, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    await r.list({ ...scope, name: typeof scope.raw['name'] === 'string' ? scope.raw['name'] : undefined });
  });
  const show = new Command('show').description('Show a formula').argument('<formula-id>', "the formula's id");
  addReactorScopeOptions(show, deps).action(async (...args: unknown[]) => {
    await r.show({ ...reactorScopeFrom(args), formulaId: String(args[0]), yes: false });
  });
  const remove = new Command('delete')
    .description('Delete a private formula (refused while reactors use it)')
    .argument('<formula-id>', "the formula's id");
  addReactorScopeOptions(markDestructive(remove, 'deleting a formula', { verb: 'delete' }), deps).action(
    async (...args: unknown[]) => {
      const scope = reactorScopeFrom(args);
      await r.delete({ ...scope, formulaId: String(args[0]), yes: yesFrom(args) });
    },
  );
  return new Command('formula')
    .description('Manage reactor formulas (JavaScript run by reactors)')
    .addCommand(create)
    .addCommand(list)
    .addCommand(show)
    .addCommand(update)
    .addCommand(remove);
}

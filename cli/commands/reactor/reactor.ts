import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Reactor, ReactorInput } from '../../../core/reactors/contract.ts';
import { Command, Option } from 'commander';
import { completesWith } from '../../options/completion-values.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { reportDeleted } from '../../program/deletion.ts';
import { wholeListJson } from '../../output/pages.ts';
import { writeRecord, writeTable } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import {
  addReactorScopeOptions,
  allPages,
  jsonFlag,
  jsonFromFlagOrFile,
  reactorEntries,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from './common.ts';

export interface ReactorWriteOptions extends ReactorScopeOptions {
  readonly reactorId?: string;
  readonly name?: string;
  readonly formula?: string;
  /** JSON object text. */
  readonly configuration?: string;
  /** An application id; null removes it (update: `--no-application`); undefined keeps it. */
  readonly application?: string | null;
}

export interface ReactorIdOptions extends ReactorScopeOptions {
  readonly reactorId: string;
  readonly yes: boolean;
}

export interface ReactOptions extends ReactorScopeOptions {
  readonly reactorId: string;
  readonly args?: string;
  readonly argsFile?: string;
}

function print(deps: CliDeps, options: ReactorScopeOptions, reactor: Reactor): void {
  if (options.json) writeJson(deps.stdout, reactor);
  else writeRecord(deps, reactorEntries(reactor));
}

function applicationRef(value: string | null | undefined): ReactorInput['application'] {
  return value === undefined || value === null ? null : { id: value };
}

export async function runReactorCreate(deps: CliDeps, options: ReactorWriteOptions): Promise<void> {
  if (options.name === undefined || options.formula === undefined) {
    throw new VaultError('USAGE', 'a reactor needs --name and --formula');
  }
  const configuration = (await jsonFlag(deps, options.configuration, '--configuration')) ?? {};
  const created = await withReactors(deps, options, (services, principal) =>
    services.reactors.create(principal, {
      name: options.name,
      formula: { id: options.formula },
      configuration,
      application: applicationRef(options.application),
    }),
  );
  print(deps, options, created);
}

export async function runReactorUpdate(deps: CliDeps, options: ReactorWriteOptions): Promise<void> {
  const id = options.reactorId as string;
  const configuration = await jsonFlag(deps, options.configuration, '--configuration');
  const updated = await withReactors(deps, options, async (services, principal) => {
    const current = await services.reactors.get(principal, id);
    return services.reactors.update(principal, id, {
      name: options.name ?? current.name,
      configuration: configuration ?? current.configuration,
      application:
        options.application === undefined
          ? applicationRef(current.application?.id)
          : applicationRef(options.application),
    });
  });
  print(deps, options, updated);
}

export async function runReactorList(
  deps: CliDeps,
  options: ReactorScopeOptions & { name?: string },
): Promise<void> {
  const reactors = await withReactors(deps, options, (services, principal) =>
    allPages((page) => services.reactors.list(principal, { name: options.name }, page)),
  );
  if (options.json) {
    writeJson(deps.stdout, wholeListJson(reactors));
    return;
  }
  if (reactors.length === 0) {
    writeLine(deps.stderr, "No reactors (create one with 'svc reactor create').");
    return;
  }
  writeTable(
    deps,
    ['ID', 'NAME', 'FORMULA', 'APPLICATION'],
    reactors.map((x) => [x.id, x.name, x.formula.name, x.application?.name ?? '']),
  );
}

export async function runReactorShow(deps: CliDeps, options: ReactorIdOptions): Promise<void> {
  const reactor = await withReactors(deps, options, (services, principal) =>
    services.reactors.get(principal, options.reactorId),
  );
  print(deps, options, reactor);
}

export async function runReactorDelete(deps: CliDeps, options: ReactorIdOptions): Promise<void> {
  await withReactors(deps, options, async (services, principal) => {
    const reactor = await services.reactors.get(principal, options.reactorId);
    await confirmDestructive(deps, options.yes, {
      question: `Delete reactor ${reactor.name} (${reactor.id})?`,
      unchanged: 'the reactor was left as it is',
    });
    await services.reactors.delete(principal, reactor.id);
  });
  reportDeleted(deps, options.json, { id: options.reactorId }, `Deleted reactor ${options.reactorId}`);
}

/** Prints the response JSON: `{raw, tokens}`, or `{status, headers, body}` of a custom response. */
export async function runReact(deps: CliDeps, options: ReactOptions): Promise<void> {
  const args = (await jsonFromFlagOrFile(deps, options.args, options.argsFile, '--args')) ?? {};
  const result = await withReactors(deps, options, (services, principal) =>
    services.reactors.react(principal, options.reactorId, args),
  );
  if (result.kind === 'response') writeJson(deps.stdout, result.body);
  else writeJson(deps.stdout, { status: result.status, headers: result.headers, body: result.body });
}

export interface ReactorRunners {
  readonly create: Runner<ReactorWriteOptions>;
  readonly update: Runner<ReactorWriteOptions>;
  readonly list: Runner<ReactorScopeOptions & { name?: string }>;
  readonly show: Runner<ReactorIdOptions>;
  readonly delete: Runner<ReactorIdOptions>;
  readonly react: Runner<ReactOptions>;
}

const text = (raw: Record<string, unknown>, key: string) =>
  typeof raw[key] === 'string' ? (raw[key] as string) : undefined;

export function newReactorCommand(deps: CliDeps, runners: Partial<ReactorRunners> = {}): Command {
  const r: ReactorRunners = {
    create: (o) => runReactorCreate(deps, o),
    update: (o) => runReactorUpdate(deps, o),
    list: (o) => runReactorList(deps, o),
    show: (o) => runReactorShow(deps, o),
    delete: (o) => runReactorDelete(deps, o),
    react: (o) => runReact(deps, o),
    ...runners,
  };
  const create = new Command('create')
    .description('Create a reactor from a formula')
    .option('--name <name>', 'reactor name (at most 200 characters)')
    .addOption(
      completesWith(new Option('--formula <id>', "the formula's id (see 'svc formula list')"), {
        ids: 'formula',
      }),
    )
    .option('--configuration <json>', 'configuration values (JSON object), one per declared setting')
    .addOption(
      completesWith(new Option('--application <id>', 'the application its code acts as (req.svc)'), {
        ids: 'application',
      }),
    );
  addReactorScopeOptions(create, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    await r.create({
      ...scope,
      name: text(scope.raw, 'name'),
      formula: text(scope.raw, 'formula'),
      configuration: text(scope.raw, 'configuration'),
      application: text(scope.raw, 'application'),
    });
  });
  const update = new Command('update')
    .description('Update a reactor; fields not given keep their value (the formula never changes)')
    .argument('<reactor-id>', "the reactor's id (see 'svc reactor list')")
    .option('--name <name>', 'new name')
    .option('--configuration <json>', 'new configuration values (JSON object)')
    .addOption(
      completesWith(new Option('--application <id>', 'the application its code acts as'), {
        ids: 'application',
      }),
    )
    .option('--no-application', 'remove the application');
  addReactorScopeOptions(update, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    const application = scope.raw['application'];
    await r.update({
      ...scope,
      reactorId: String(args[0]),
      name: text(scope.raw, 'name'),
      configuration: text(scope.raw, 'configuration'),
      application: application === false ? null : typeof application === 'string' ? application : undefined,
    });
  });
  const list = new Command('list')
    .description("List the tenant's reactors")
    .option('--name <pattern>', 'only names matching (* is a wildcard)');
  addReactorScopeOptions(list, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    await r.list({ ...scope, name: text(scope.raw, 'name') });
  });
  const show = new Command('show').description('Show a reactor').argument('<reactor-id>', "the reactor's id");
  addReactorScopeOptions(show, deps).action(async (...args: unknown[]) => {
    await r.show({ ...reactorScopeFrom(args), reactorId: String(args[0]), yes: false });
  });
  const remove = new Command('delete')
    .description('Delete a reactor')
    .argument('<reactor-id>', "the reactor's id");
  addReactorScopeOptions(markDestructive(remove, 'deleting a reactor', { verb: 'delete' }), deps).action(
    async (...args: unknown[]) => {
      const scope = reactorScopeFrom(args);
      await r.delete({ ...scope, reactorId: String(args[0]), yes: yesFrom(args) });
    },
  );
  const react = new Command('react')
    .description('Invoke a reactor as the operator; prints the response JSON')
    .argument('<reactor-id>', "the reactor's id")
    .option('--args <json>', 'the args (JSON object; {{ <token id> }} expressions are detokenized)')
    .option('--args-file <file>', 'read the args from a file (- for standard input)');
  addReactorScopeOptions(react, deps).action(async (...args: unknown[]) => {
    const scope = reactorScopeFrom(args);
    await r.react({
      ...scope,
      reactorId: String(args[0]),
      args: text(scope.raw, 'args'),
      argsFile: text(scope.raw, 'argsFile'),
    });
  });
  return new Command('reactor')
    .description('Manage and invoke reactors')
    .addCommand(create)
    .addCommand(list)
    .addCommand(show)
    .addCommand(update)
    .addCommand(remove)
    .addCommand(react);
}

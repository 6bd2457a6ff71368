import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { completesWith } from '../../options/completion-values.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  addReactorScopeOptions,
  applicationRef,
  jsonObjectFlag,
  printReactor,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from './common.ts';

export interface ReactorCreateOptions extends ReactorScopeOptions {
  readonly name: string | undefined;
  /** The formula's id. */
  readonly formula: string | undefined;
  /** JSON object text. */
  readonly configuration: string | undefined;
  /** An application id. */
  readonly application: string | undefined;
}

export function newReactorCreateCommand(
  deps: CliDeps,
  run: Runner<ReactorCreateOptions> = (o) => runReactorCreate(deps, o),
): Command {
  const command = new Command('create')
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
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<{
      name?: string;
      formula?: string;
      configuration?: string;
      application?: string;
    }>(args);
    const { name, formula, configuration, application } = raw;
    await run({ ...scope, name, formula, configuration, application });
  });
}

export async function runReactorCreate(deps: CliDeps, options: ReactorCreateOptions): Promise<void> {
  const { name, formula } = options;
  if (name === undefined || formula === undefined) {
    throw new VaultError('USAGE', 'a reactor needs --name and --formula');
  }
  const configuration = (await jsonObjectFlag(deps, options.configuration, '--configuration')) ?? {};
  const created = await withReactors(deps, options, (services, principal) =>
    services.reactors.create(principal, {
      name,
      formula: { id: formula },
      configuration,
      application: applicationRef(options.application),
    }),
  );
  printReactor(deps, options, created);
}

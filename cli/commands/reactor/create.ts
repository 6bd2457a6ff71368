import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import { completesWith } from '../../options/completion-values.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { applicationRef, jsonObjectFlag, printReactor, withReactors } from './common.ts';
import { reactorFieldsAction, type ReactorFieldsOptions } from './fields.ts';

export interface ReactorCreateOptions extends ReactorFieldsOptions {
  /** The formula's id. */
  readonly formula: string | undefined;
}

export function newReactorCreateCommand(
  deps: CliDeps,
  run: Runner<ReactorCreateOptions> = (o) => runReactorCreate(deps, o),
): Command {
  const command = new Command('create').description('Create a reactor from a formula').addOption(
    completesWith(new Option('--formula <id>', "the formula's id (see 'svc formula list')"), {
      ids: 'formula',
    }),
  );
  return reactorFieldsAction<{ formula?: string }>(
    command,
    deps,
    { applicationRemovable: false },
    (options, raw) => run({ ...options, formula: raw.formula }),
  );
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

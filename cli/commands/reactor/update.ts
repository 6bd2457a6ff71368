import { Command, Option } from 'commander';
import { completesWith } from '../../options/completion-values.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  REACTOR_ID_HELP,
  addReactorScopeOptions,
  applicationRef,
  jsonObjectFlag,
  printReactor,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from './common.ts';

export interface ReactorUpdateOptions extends ReactorScopeOptions {
  readonly reactorId: string;
  readonly name: string | undefined;
  /** JSON object text. */
  readonly configuration: string | undefined;
  /** An application id; null removes it (`--no-application`); undefined keeps it. */
  readonly application: string | null | undefined;
}

export function newReactorUpdateCommand(
  deps: CliDeps,
  run: Runner<ReactorUpdateOptions> = (o) => runReactorUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description('Update a reactor; fields not given keep their value (the formula never changes)')
    .argument('<reactor-id>', REACTOR_ID_HELP)
    .option('--name <name>', 'new name')
    .option('--configuration <json>', 'new configuration values (JSON object)')
    .addOption(
      completesWith(new Option('--application <id>', 'the application its code acts as'), {
        ids: 'application',
      }),
    )
    .option('--no-application', 'remove the application');
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<{
      name?: string;
      configuration?: string;
      application?: string | false;
    }>(args);
    const { name, configuration, application } = raw;
    await run({
      ...scope,
      reactorId: String(args[0]),
      name,
      configuration,
      application: application === false ? null : application,
    });
  });
}

export async function runReactorUpdate(deps: CliDeps, options: ReactorUpdateOptions): Promise<void> {
  const id = options.reactorId;
  const configuration = await jsonObjectFlag(deps, options.configuration, '--configuration');
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
  printReactor(deps, options, updated);
}

import { Option, type Command } from 'commander';
import { completesWith } from '../../options/completion-values.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { addReactorScopeOptions, reactorScopeFrom, type ReactorScopeOptions } from './common.ts';

/** The options of reactor create and update: the scope and the reactor's fields given as flags. */
export interface ReactorFieldsOptions extends ReactorScopeOptions {
  readonly name: string | undefined;
  /** JSON object text. */
  readonly configuration: string | undefined;
  /** An application id; null removes it (`--no-application`); undefined keeps it. */
  readonly application: string | null | undefined;
}

/** The field options; `--no-application` where the application can be removed (update). */
function addReactorFieldOptions(command: Command, applicationRemovable: boolean): Command {
  command
    .option('--name <name>', 'reactor name (at most 200 characters)')
    .option('--configuration <json>', 'configuration values (JSON object), one per declared setting')
    .addOption(
      completesWith(new Option('--application <id>', 'the application its code acts as (req.svc)'), {
        ids: 'application',
      }),
    );
  // After --application: declared first, --no-application would make the application true by default.
  return applicationRemovable ? command.option('--no-application', 'remove the application') : command;
}

/**
 * Reactor create and update: adds the field options (after the command's own) and the scope's to
 * `command`, and an action that hands `act` the parsed options, the raw values of the flags the
 * command adds besides (`O`) and the positional arguments.
 */
export function reactorFieldsAction<O extends object = object>(
  command: Command,
  deps: CliDeps,
  fields: { readonly applicationRemovable: boolean },
  act: (options: ReactorFieldsOptions, raw: O, args: readonly unknown[]) => Promise<void>,
): Command {
  addReactorFieldOptions(command, fields.applicationRemovable);
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<
      { name?: string; configuration?: string; application?: string | false } & O
    >(args);
    const { name, configuration, application } = raw;
    const options = {
      ...scope,
      name,
      configuration,
      application: application === false ? null : application,
    };
    await act(options, raw, args);
  });
}

import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { REACTOR_ID_HELP, applicationRef, jsonObjectFlag, printReactor, withReactors } from './common.ts';
import { reactorFieldsAction, type ReactorFieldsOptions } from './fields.ts';

export interface ReactorUpdateOptions extends ReactorFieldsOptions {
  readonly reactorId: string;
}

export function newReactorUpdateCommand(
  deps: CliDeps,
  run: Runner<ReactorUpdateOptions> = (o) => runReactorUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description('Update a reactor; fields not given keep their value (the formula never changes)')
    .argument('<reactor-id>', REACTOR_ID_HELP);
  return reactorFieldsAction(command, deps, { applicationRemovable: true }, (options, _raw, args) =>
    run({ ...options, reactorId: String(args[0]) }),
  );
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

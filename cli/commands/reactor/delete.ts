import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import { reportDeleted } from '../../program/deletion.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { REACTOR_ID_HELP, addReactorScopeOptions, withReactors } from './common.ts';
import { reactorIdOptionsFrom, type ReactorIdOptions } from './show.ts';

export interface ReactorDeleteOptions extends ReactorIdOptions {
  readonly yes: boolean;
}

export function newReactorDeleteCommand(
  deps: CliDeps,
  run: Runner<ReactorDeleteOptions> = (o) => runReactorDelete(deps, o),
): Command {
  const command = new Command('delete')
    .description('Delete a reactor')
    .argument('<reactor-id>', REACTOR_ID_HELP);
  markDestructive(command, 'deleting a reactor', { verb: 'delete' });
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) =>
    run({ ...reactorIdOptionsFrom(args), yes: yesFrom(args) }),
  );
}

export async function runReactorDelete(deps: CliDeps, options: ReactorDeleteOptions): Promise<void> {
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

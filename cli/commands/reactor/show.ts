import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import {
  REACTOR_ID_HELP,
  addReactorScopeOptions,
  printReactor,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from './common.ts';

export interface ReactorIdOptions extends ReactorScopeOptions {
  readonly reactorId: string;
}

export function reactorIdOptionsFrom(args: readonly unknown[]): ReactorIdOptions {
  return { ...reactorScopeFrom(args).scope, reactorId: String(args[0]) };
}

export function newReactorShowCommand(
  deps: CliDeps,
  run: Runner<ReactorIdOptions> = (o) => runReactorShow(deps, o),
): Command {
  const command = new Command('show').description('Show a reactor').argument('<reactor-id>', REACTOR_ID_HELP);
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) =>
    run(reactorIdOptionsFrom(args)),
  );
}

export async function runReactorShow(deps: CliDeps, options: ReactorIdOptions): Promise<void> {
  const reactor = await withReactors(deps, options, (services, principal) =>
    services.reactors.get(principal, options.reactorId),
  );
  printReactor(deps, options, reactor);
}

import type { Command } from 'commander';

/**
 * What a command does once its options are parsed. Factories take it as an optional second argument
 * (the GitHub CLI's `runF`) so parsing tests can capture the typed options without running anything.
 */
export type Runner<O> = (options: O) => Promise<void>;

/** Commander passes the command itself as the last action argument. */
export function commandOf(args: readonly unknown[]): Command {
  return args[args.length - 1] as Command;
}

const PRINTS_NO_DATA = new WeakSet<Command>();

/** Marks a command whose output is no data (a shell script, say): it gets no `--json`/`--jq`. */
export function printsNoData(command: Command): Command {
  PRINTS_NO_DATA.add(command);
  return command;
}

/**
 * Whether `command` runs and prints data, and so takes `--json` and `--jq` (cli/main.ts adds them):
 * every command with an action, unless marked by `printsNoData`. A group (`svc tenant`) has no
 * action of its own; `svc logs` has one as well as its subcommands.
 */
export function printsData(command: Command): boolean {
  // Commander keeps the action in a field of its own; it is set by `.action()` and nowhere else.
  const action = (command as unknown as { _actionHandler: unknown })._actionHandler;
  return action !== null && action !== undefined && !PRINTS_NO_DATA.has(command);
}

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

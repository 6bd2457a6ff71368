import type { Command } from 'commander';
import type { Runner } from '../program/command-kit.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { configureTree } from '../main.ts';
import { makeTestIo } from './harness.ts';

/** The working directory parse tests run in, so relative paths resolve to something known. */
export const PARSE_CWD = '/work/somewhere';

/**
 * The parsing layer of a command: commander flags → the typed options it would run with. The
 * runner is replaced by a capture (the GitHub CLI's runF), so nothing touches a vault.
 */
export async function parseOptions<O>(
  factory: (deps: CliDeps, run: Runner<O>) => Command,
  args: string[],
  // A destructive verb without --yes parses only where it could ask: on a terminal.
  options: { readonly isTTY?: boolean } = {},
): Promise<O> {
  const io = makeTestIo({ cwd: PARSE_CWD, isTTY: options.isTTY ?? false });
  let captured: O | undefined;
  const command = factory(io.deps, async (options) => {
    captured = options;
  });
  configureTree(command, io.deps);
  await command.parseAsync(args, { from: 'user' });
  if (captured === undefined) throw new Error('the runner was not called');
  return captured;
}

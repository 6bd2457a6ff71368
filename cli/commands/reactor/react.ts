import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeJson } from '../../output/write.ts';
import {
  REACTOR_ID_HELP,
  addReactorScopeOptions,
  jsonObjectFromFlagOrFile,
  reactorScopeFrom,
  withReactors,
} from './common.ts';
import type { ReactorIdOptions } from './show.ts';

export interface ReactOptions extends ReactorIdOptions {
  /** JSON object text. */
  readonly args: string | undefined;
  readonly argsFile: string | undefined;
}

export function newReactorReactCommand(
  deps: CliDeps,
  run: Runner<ReactOptions> = (o) => runReact(deps, o),
): Command {
  const command = new Command('react')
    .description('Invoke a reactor as the operator; prints the response JSON')
    .argument('<reactor-id>', REACTOR_ID_HELP)
    .option('--args <json>', 'the args (JSON object; {{ <token id> }} expressions are detokenized)')
    .option('--args-file <file>', 'read the args from a file (- for standard input)');
  return addReactorScopeOptions(command, deps).action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<{ args?: string; argsFile?: string }>(args);
    await run({ ...scope, reactorId: String(args[0]), args: raw.args, argsFile: raw.argsFile });
  });
}

/** Prints the response JSON: `{raw, tokens}`, or `{status, headers, body}` of a custom response. */
export async function runReact(deps: CliDeps, options: ReactOptions): Promise<void> {
  const args = (await jsonObjectFromFlagOrFile(deps, options.args, options.argsFile, '--args')) ?? {};
  const result = await withReactors(deps, options, (services, principal) =>
    services.reactors.react(principal, options.reactorId, args),
  );
  if (result.kind === 'response') writeJson(deps.stdout, result.body);
  else writeJson(deps.stdout, { status: result.status, headers: result.headers, body: result.body });
}

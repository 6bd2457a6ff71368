import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeJson } from '../../output/write.ts';
import {
  addReactorScopeOptions,
  jsonFromFlagOrFile,
  reactorScopeFrom,
  withReactors,
  type ReactorScopeOptions,
} from '../reactor/common.ts';

export interface DetokenizeOptions extends ReactorScopeOptions {
  readonly json_: string | undefined;
  readonly file: string | undefined;
  readonly reveal: boolean;
}

const HELP_AFTER = `
Replaces every {{ <token id> | filters }} expression in the JSON by the token data, as POST
/detokenize does. The CLI acts as the operator, who reads plaintext: the output holds token data,
so the command insists on --reveal.

Examples:
  svc detokenize --reveal '{"card":"{{ 3f2c… }}","last4":"{{ 3f2c… | json: \\'$.number\\' | last4 }}"}'
  svc detokenize --reveal --file payload.json`;

export function newDetokenizeCommand(
  deps: CliDeps,
  run: Runner<DetokenizeOptions> = (o) => runDetokenize(deps, o),
): Command {
  const command = new Command('detokenize')
    .description('Replace {{ <token id> }} expressions in JSON by token data; prints JSON')
    .argument('[json]', 'the JSON (visible in ps and shell history: prefer --file)')
    .addOption(new Option('--file <file>', 'read the JSON from a file (- for standard input)'))
    .option('--reveal', 'print plaintext token data (required)');
  addReactorScopeOptions(command, deps);
  command.addHelpText('after', HELP_AFTER);
  return command.action(async (...args: unknown[]) => {
    const { scope, raw } = reactorScopeFrom<{ file?: string; reveal?: boolean }>(args);
    await run({
      ...scope,
      json_: args[0] as string | undefined,
      file: raw.file,
      reveal: raw.reveal === true,
    });
  });
}

export async function runDetokenize(deps: CliDeps, options: DetokenizeOptions): Promise<void> {
  if (!options.reveal) {
    throw new VaultError('USAGE', 'detokenize prints plaintext token data; pass --reveal to confirm');
  }
  const body = await jsonFromFlagOrFile(deps, options.json_, options.file, 'the JSON');
  if (body === undefined)
    throw new VaultError('USAGE', 'nothing to detokenize: pass JSON as an argument or with --file');
  const result = await withReactors(deps, options, (services, principal) =>
    services.detokenizer.detokenize(principal, body),
  );
  writeJson(deps.stdout, result);
}

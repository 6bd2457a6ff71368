import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeJson } from '../../output/write.ts';
import { tokenScopeAction, withTokens, type RawTokenScope, type TokenScopeOptions } from '../token/common.ts';
import {
  jsonSourceOf,
  promptTokenData,
  promptTokenType,
  readJson,
  scrubbing,
  textSource,
  tokenizeSecretsOf,
  type JsonSource,
} from '../token/input.ts';

export interface TokenizeOptions extends TokenScopeOptions {
  /** The argument or `--file`; undefined: standard input when piped, else the prompts. */
  readonly source: JsonSource | undefined;
}

const HELP_AFTER = `
The body is walked like POST /tokenize: an object with "type" and "data" is a token definition
and becomes the created token (data masked); any other string, number or boolean becomes a
"token" token and is replaced by its id; objects and arrays are walked member by member. All or
nothing: one invalid definition creates no token. The output is always JSON, shaped like the input.

Where the JSON comes from: the argument, --file, or standard input when it is piped. With none of
these on a terminal, you are asked for a type and a value (hidden input).

Examples:
  svc tokenize '{"ssn":{"type":"social_security_number","data":"123-45-6789"},"note":"secret"}'
  svc tokenize --file payload.json
  cat payload.json | svc tokenize
  svc tokenize                 # asks for a type and a value`;

export function newTokenizeCommand(
  deps: CliDeps,
  run: Runner<TokenizeOptions> = (o) => runTokenize(deps, o),
): Command {
  const command = new Command('tokenize')
    .description('Tokenize any JSON; prints the response JSON (tokens and ids in place of values)')
    .argument('[json]', 'the JSON to tokenize (visible in ps and shell history: prefer --file or a pipe)')
    .addOption(new Option('--file <file>', 'read the JSON from a file (- for standard input)'));
  command.addHelpText('after', HELP_AFTER);
  return tokenScopeAction<RawTokenScope & { file?: string }>(command, deps, async (scope, raw, args) => {
    const text = args[0] as string | undefined;
    if (text !== undefined && raw.file !== undefined) {
      throw new VaultError('USAGE', 'give the JSON as an argument or with --file, not both');
    }
    await run({ ...scope, source: jsonSourceOf(deps, text, raw.file, 'the JSON argument') });
  });
}

/** The body from the argument, the file or piped stdin; undefined when it is to be asked. */
async function givenBody(
  deps: CliDeps,
  source: JsonSource | undefined,
): Promise<{ body: unknown } | undefined> {
  if (source !== undefined) return { body: await readJson(deps, source) };
  if (deps.isTTY) return undefined;
  const text = await deps.readStdin();
  if (text.trim() === '') {
    throw new VaultError(
      'USAGE',
      'nothing to tokenize: pass JSON as an argument, with --file, or on standard input',
    );
  }
  return { body: await readJson(deps, textSource(text, 'standard input')) };
}

export async function runTokenize(deps: CliDeps, options: TokenizeOptions): Promise<void> {
  // Given JSON is checked before the vault is unlocked; asked values after (a wrong tenant fails
  // before anyone types a secret).
  const given = await givenBody(deps, options.source);
  let body: unknown = given?.body;
  const response = await withTokens(deps, options, async ({ tokens, principal }) => {
    if (given === undefined) {
      const type = await promptTokenType(deps);
      body = { type, data: await promptTokenData(deps, type) };
    }
    return scrubbing(tokenizeSecretsOf(body), () => tokens.tokenize(principal, body));
  });
  writeJson(deps.stdout, response);
}

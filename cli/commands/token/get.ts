import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson } from '../../output/write.ts';
import { TOKEN_ID_HELP, tokenScopeAction, withTokens, type TokenScopeOptions } from './common.ts';
import { tokenEntries } from './format.ts';
import { noToken, orNotFound } from '../../tenancy/tenant-scope.ts';

export interface TokenGetOptions extends TokenScopeOptions {
  readonly tokenId: string;
  readonly reveal: boolean;
}

/** `--reveal`: read, list and search show the masked view unless asked for plaintext. */
export const REVEAL_HELP = 'show the data in plaintext (default: masked, as a mask transform shows it)';

export function newTokenGetCommand(
  deps: CliDeps,
  run: Runner<TokenGetOptions> = (o) => runTokenGet(deps, o),
): Command {
  const command = new Command('get')
    .description('Show a token; its data masked unless --reveal')
    .argument('<token-id>', TOKEN_ID_HELP)
    .option('--reveal', REVEAL_HELP);
  return tokenScopeAction(command, deps, (scope, raw, args) =>
    run({ ...scope, tokenId: String(args[0]), reveal: raw.reveal === true }),
  );
}

export async function runTokenGet(deps: CliDeps, options: TokenGetOptions): Promise<void> {
  const view = await withTokens(deps, options, ({ tokens, principal }) =>
    orNotFound(noToken(options.tokenId), () => tokens.get(principal, options.tokenId)),
  );
  if (options.json) writeJson(deps.stdout, view);
  else writeRecord(deps, tokenEntries(view, options.reveal ? 'Data' : 'Data (masked)'));
}

import { Command, Option } from 'commander';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { writeRecord } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import {
  TOKEN_ID_HELP,
  tokenScopeAction,
  withTokens,
  type RawTokenScope,
  type TokenScopeOptions,
} from './common.ts';
import { tokenEntries } from './format.ts';
import { isPlainObject, jsonSourceOf, readJson, scrubbing, secretsOf, type JsonSource } from './input.ts';
import { noToken, orNotFound } from '../../tenancy/tenant-scope.ts';

export interface TokenUpdateOptions extends TokenScopeOptions {
  readonly tokenId: string;
  readonly patch: JsonSource | undefined;
}

const HELP_AFTER = `
The patch is a JSON merge patch (RFC 7386): data, mask and metadata are merged (null removes a
member); containers, search_indexes, fingerprint_expression, deduplicate_token and expires_at
are replaced. The response shows the data masked.

Examples:
  svc token update 3f2c… --patch '{"metadata":{"customer":"c-43","old":null}}'
  svc token update 3f2c… --patch-file patch.json
  echo '{"data":{"expiration_year":2031}}' | svc token update 3f2c… --patch-file -`;

export function newTokenUpdateCommand(
  deps: CliDeps,
  run: Runner<TokenUpdateOptions> = (o) => runTokenUpdate(deps, o),
): Command {
  const command = new Command('update')
    .description('Change a token with a JSON merge patch')
    .argument('<token-id>', TOKEN_ID_HELP)
    .addOption(new Option('--patch <json>', 'the merge patch as JSON').conflicts('patchFile'))
    .option('--patch-file <file>', 'read the merge patch from a file (- for standard input)');
  command.addHelpText('after', HELP_AFTER);
  return tokenScopeAction<RawTokenScope & { patch?: string; patchFile?: string }>(
    command,
    deps,
    (scope, raw, args) =>
      run({
        ...scope,
        tokenId: String(args[0]),
        patch: jsonSourceOf(deps, raw.patch, raw.patchFile, '--patch'),
      }),
  );
}

export async function runTokenUpdate(deps: CliDeps, options: TokenUpdateOptions): Promise<void> {
  if (options.patch === undefined)
    throw new VaultError('USAGE', 'nothing to update; pass --patch or --patch-file');
  const patch = await readJson(deps, options.patch);
  if (!isPlainObject(patch)) {
    throw new VaultError('USAGE', `the patch (${options.patch.label}) must be a JSON object`);
  }
  if (Object.keys(patch).length === 0) throw new VaultError('USAGE', 'the patch is empty; nothing to update');
  const updated = await withTokens(deps, options, ({ tokens, principal }) =>
    orNotFound(noToken(options.tokenId), () =>
      scrubbing(secretsOf(patch.data), () => tokens.update(principal, options.tokenId, patch)),
    ),
  );
  if (options.json) {
    writeJson(deps.stdout, updated);
    return;
  }
  writeRecord(deps, tokenEntries(updated, 'Data (masked)'));
  if (updated.id !== options.tokenId) writeLine(deps.stderr, `note: the token's id is now ${updated.id}`);
}

import { Command } from 'commander';
import { confirmDestructive, markDestructive, yesFrom } from '../../program/confirmation.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { reportDeleted } from '../../program/deletion.ts';
import { TOKEN_ID_HELP, tokenScopeAction, withTokens, type TokenScopeOptions } from './common.ts';
import { cell } from './format.ts';
import { noToken, orNotFound } from '../../tenancy/tenant-scope.ts';

export interface TokenDeleteOptions extends TokenScopeOptions {
  readonly tokenId: string;
  readonly yes: boolean;
}

export function newTokenDeleteCommand(
  deps: CliDeps,
  run: Runner<TokenDeleteOptions> = (o) => runTokenDelete(deps, o),
): Command {
  const command = new Command('delete')
    .description('Delete a token: its data is destroyed for good (an audit record stays)')
    .argument('<token-id>', TOKEN_ID_HELP);
  markDestructive(command, 'deleting a token', { verb: 'delete' });
  return tokenScopeAction(command, deps, (scope, _raw, args) =>
    run({ ...scope, tokenId: String(args[0]), yes: yesFrom(args) }),
  );
}

export async function runTokenDelete(deps: CliDeps, options: TokenDeleteOptions): Promise<void> {
  const tenantId = await withTokens(deps, options, async ({ tokens, principal, tenant }) => {
    // No read first: reading would reveal the data to this process and count as use of the token.
    await confirmDestructive(deps, options.yes, {
      question: `Delete token ${options.tokenId}? Its data cannot be recovered.`,
      unchanged: 'the token was left as it is',
    });
    await orNotFound(noToken(options.tokenId), () => tokens.delete(principal, options.tokenId));
    return tenant.id;
  });
  reportDeleted(
    deps,
    options.json,
    { id: options.tokenId, tenant_id: tenantId },
    `Deleted token ${cell(options.tokenId)}`,
  );
}

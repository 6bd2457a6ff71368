import { Command } from 'commander';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { tokenScopeAction, withTokens } from './common.ts';
import { pastTheEnd, writeTokenPage } from './format.ts';
import {
  addFilterOptions,
  addPageOptions,
  filterOf,
  pageOptionsFrom,
  type RawTokenList,
  type TokenListOptions,
} from './list.ts';

/** `svc token children <parent-id>`: the child tokens of a token, filtered and paged like `list`. */
export interface TokenChildrenOptions extends TokenListOptions {
  readonly parentId: string;
}

export function newTokenChildrenCommand(
  deps: CliDeps,
  run: Runner<TokenChildrenOptions> = (o) => runTokenChildren(deps, o),
): Command {
  const command = new Command('children')
    .description('List the child tokens of a token (never their data unless --reveal)')
    .argument('<parent-id>', "the parent token's id (see 'svc token list')");
  addFilterOptions(command);
  addPageOptions(command);
  return tokenScopeAction<RawTokenList>(command, deps, (scope, raw, args) =>
    run({
      ...pageOptionsFrom(scope, raw),
      parentId: String(args[0]),
      ids: raw.id,
      types: raw.type,
      metadata: raw.metadata,
    }),
  );
}

export async function runTokenChildren(deps: CliDeps, options: TokenChildrenOptions): Promise<void> {
  const request = { page: options.page, size: options.size };
  const filter = filterOf(options);
  const page = await withTokens(deps, options, ({ associations, principal }) =>
    associations.children(principal, options.parentId, filter, request),
  );
  writeTokenPage(deps, page, request, {
    ...options,
    empty:
      pastTheEnd('children', options.page, page.total) ??
      "No child tokens (link one with 'svc token associate <parent-id> <child-id>').",
  });
}

import { Command, Option } from 'commander';
import type { TokenFilter } from '../../../core/tokens/contract.ts';
import { DEFAULT_PAGE_SIZE } from '../../../core/common-types.ts';
import { MAX_TOKEN_PAGE_SIZE, TOKEN_TYPE_NAMES, type TokenType } from '../../../core/tokens/index.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { completesWith } from '../../options/completion-values.ts';
import { collectList } from '../../options/values.ts';
import { tokenScopeAction, withTokens, type RawTokenScope, type TokenScopeOptions } from './common.ts';
import { pastTheEnd, writeTokenPage } from './format.ts';
import { REVEAL_HELP } from './get.ts';
import { collectMetadata, collectTokenTypes, parsePage, parseSize } from './input.ts';
import { runnable } from '../../output/runnable.ts';

/** `--page`, `--size`, `--reveal`: list and search. */
export interface TokenPageOptions extends TokenScopeOptions {
  readonly page: number;
  readonly size: number;
  readonly reveal: boolean;
  /** Full cells on a terminal instead of columns cut to its width. */
  readonly wide: boolean;
}

export type RawTokenPage = RawTokenScope & { page?: number; size?: number; wide?: boolean };

export function addPageOptions(command: Command): Command {
  return command
    .option('--page <n>', 'page number (default 1)', parsePage)
    .option(
      '--size <n>',
      `tokens per page, at most ${MAX_TOKEN_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
      parseSize,
    )
    .option('--reveal', `${REVEAL_HELP}; the table's Data column shows it`)
    .option(
      '--wide',
      'add the container and fingerprint columns and show every cell in full (tables fit the terminal otherwise)',
    );
}

export function pageOptionsFrom(scope: TokenScopeOptions, raw: RawTokenPage): TokenPageOptions {
  return {
    ...scope,
    page: raw.page ?? 1,
    size: raw.size ?? DEFAULT_PAGE_SIZE,
    reveal: raw.reveal === true,
    wide: raw.wide === true,
  };
}

export interface TokenListOptions extends TokenPageOptions {
  readonly ids: readonly string[] | undefined;
  readonly types: readonly TokenType[] | undefined;
  readonly metadata: Readonly<Record<string, string>> | undefined;
}

export type RawTokenList = RawTokenPage & {
  id?: string[];
  type?: TokenType[];
  metadata?: Record<string, string>;
};

/** `--id`, `--type`, `--metadata`: the filters of list and children. */
export function addFilterOptions(command: Command): Command {
  return command
    .option('--id <id>', 'only these ids; repeat or separate with commas', collectList)
    .addOption(
      completesWith(
        new Option('--type <type>', 'only these types; repeat or separate with commas').argParser(
          collectTokenTypes,
        ),
        TOKEN_TYPE_NAMES,
      ),
    )
    .option(
      '--metadata <key=value>',
      'only tokens with this metadata (case-insensitive exact match); repeatable, all must match',
      collectMetadata,
    );
}

export function newTokenListCommand(
  deps: CliDeps,
  run: Runner<TokenListOptions> = (o) => runTokenList(deps, o),
): Command {
  const command = new Command('list').description(
    "List a tenant's tokens, a page at a time (never their data unless --reveal)",
  );
  addFilterOptions(command);
  addPageOptions(command);
  return tokenScopeAction<RawTokenList>(command, deps, (scope, raw) =>
    run({ ...pageOptionsFrom(scope, raw), ids: raw.id, types: raw.type, metadata: raw.metadata }),
  );
}

export function filterOf(options: Pick<TokenListOptions, 'ids' | 'types' | 'metadata'>): TokenFilter {
  return {
    ...(options.ids === undefined ? {} : { ids: options.ids }),
    ...(options.types === undefined ? {} : { types: options.types }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}

export async function runTokenList(deps: CliDeps, options: TokenListOptions): Promise<void> {
  const request = { page: options.page, size: options.size };
  const page = await withTokens(deps, options, ({ tokens, principal }) =>
    tokens.list(principal, filterOf(options), request),
  );
  writeTokenPage(deps, page, request, {
    ...options,
    empty:
      pastTheEnd('tokens', options.page, page.total) ??
      runnable(deps.env, "No tokens (create one with 'svc token create' or 'svc tokenize')."),
  });
}

import { Command } from 'commander';
import { isVaultError, VaultError } from '../../../core/errors/catalogue.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { tokenScopeAction, withTokens } from './common.ts';
import { writeTokenPage } from './format.ts';
import { scrubbing } from './input.ts';
import { addPageOptions, pageOptionsFrom, type RawTokenPage, type TokenPageOptions } from './list.ts';

export interface TokenSearchOptions extends TokenPageOptions {
  readonly query: string;
}

const HELP_AFTER = `
Query language (Lucene-style): field:value terms, AND / OR / NOT (uppercase), parentheses.
Fields: id, type, data (matches search indexes only), fingerprint, container ("/a/b/" exact,
"/a/*" prefix), metadata.<key>, created_by, created_at, modified_by, modified_at (ranges
[A TO B] inclusive, {A TO B} exclusive, * open).

Examples:
  svc token search 'type:social_security_number AND data:6789'
  svc token search 'metadata.customer:c-42 AND container:"/pci/*"'
  svc token search 'created_at:[2025-01-01 TO *]' --json`;

export function newTokenSearchCommand(
  deps: CliDeps,
  run: Runner<TokenSearchOptions> = (o) => runTokenSearch(deps, o),
): Command {
  const command = new Command('search')
    .description('Search tokens with a query (never their data unless --reveal)')
    .argument('<query>', "the query, e.g. 'type:card AND metadata.customer:c-42'");
  addPageOptions(command);
  command.addHelpText('after', HELP_AFTER);
  return tokenScopeAction<RawTokenPage>(command, deps, (scope, raw, args) =>
    run({ ...pageOptionsFrom(scope, raw), query: String(args[0]) }),
  );
}

/**
 * The values of a query that may be data a person typed: those of `data:` terms and bare terms
 * (`123-45-6789` without a field). Scrubbed from errors that would echo them ("'x' needs a field,
 * e.g. id:x"). Other fields (type, metadata, container…) hold no secrets and stay readable.
 */
export function queryValues(query: string): Set<string> {
  const values = new Set<string>();
  const term = /[-!+]?(?:([A-Za-z_][\w.]*):)?("(?:[^"\\]|\\.)*"|[^\s()"]+)/g;
  for (const match of query.matchAll(term)) {
    const field = match[1];
    const raw = match[2] ?? '';
    if (field !== undefined && field !== 'data') continue;
    const value = raw.startsWith('"') ? raw.slice(1, -1) : raw;
    if (['AND', 'OR', 'NOT', 'TO', '&&', '||'].includes(value) || value.length < 3) continue;
    values.add(value);
  }
  return values;
}

export async function runTokenSearch(deps: CliDeps, options: TokenSearchOptions): Promise<void> {
  const request = { page: options.page, size: options.size };
  const page = await withTokens(deps, options, ({ tokens, principal }) =>
    scrubbing(queryValues(options.query), () =>
      tokens.search(principal, { query: options.query, ...request }),
    ).catch((error: unknown) => {
      // Core's query errors say it all in the message ("Invalid search query at position 4: …");
      // the field list would repeat it.
      if (isVaultError(error, 'VALIDATION_FAILED') && Object.keys(error.errors ?? {}).join() === 'query') {
        throw new VaultError('VALIDATION_FAILED', error.message);
      }
      throw error;
    }),
  );
  writeTokenPage(deps, page, request, {
    ...options,
    empty: options.page > 1 && page.total > 0 ? `No tokens on page ${options.page}.` : 'No tokens match.',
  });
}

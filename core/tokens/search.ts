/**
 * POST /tokens/search: a page of the live tokens matching a query in the containers the caller may
 * search, each through its search transform. `data:` terms need the reveal transform everywhere
 * the caller may search (they compare plaintext through blind indexes).
 */
import type { Kysely } from 'kysely';
import { assertMaySearchActor } from '../access/actor-ids.ts';
import type { Principal } from '../access/principal.ts';
import type { Page } from '../common-types.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { verifiedRows } from '../integrity/row-authenticator.ts';
import { runCompiled } from '../storage/compiled-queries.ts';
import type { Database } from '../storage/schema.ts';
import { checkPage } from '../validation/fields.ts';
import { containerScope, searchRevealsEverywhere } from './access-scope.ts';
import type { TokenSearchRequest, TokenView } from './contract.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { requiresDataTerm } from './search-sql.ts';
import { searchStatements } from './search-statements.ts';
import { actorTerms, countDataTerms, parseSearchQuery } from './search-query.ts';
import type { Hasher } from './token-crypto.ts';
import { MAX_TOKEN_PAGE_SIZE, auditPage, viewsOf } from './token-page.ts';

export async function searchTokens(
  deps: TokenOperationDeps,
  principal: Principal,
  request: TokenSearchRequest,
): Promise<Page<TokenView>> {
  const { vault, crypto } = deps;
  const scope = containerScope(principal, 'token:search');
  const window = checkPage({ page: request.page, size: request.size }, MAX_TOKEN_PAGE_SIZE);
  if (typeof request.query !== 'string') throw validationError({ query: ['is required'] });
  const tree = parseSearchQuery(request.query);
  for (const term of actorTerms(tree)) assertMaySearchActor(principal, term.field, term.value);
  const dataTerms = countDataTerms(tree);
  if (dataTerms > 0 && !searchRevealsEverywhere(principal)) {
    throw new VaultError(
      'FORBIDDEN',
      "data: terms need 'token:search' with the reveal transform on every container the caller may search.",
    );
  }
  // One read keeps count and page consistent; a transaction when a `data:` term may create the
  // tenant's search key. The page's audit entries join the next read-audit batch after it.
  const searchIn = async (trx: Kysely<Database>) => {
    const digest: Hasher =
      dataTerms > 0 ? await crypto.searchHasher(trx, principal.tenantId) : () => new Uint8Array(0);
    const run = searchStatements(vault.db, tree, {
      tenantId: principal.tenantId,
      scope,
      driver: requiresDataTerm(tree) ? 'search-index' : 'tenant',
      now: vault.clock.now(),
      limit: window.limit,
      offset: window.offset,
      digest,
    });
    const count = await runCompiled(trx, run.count, run.countParameters);
    const rows = verifiedRows(vault, 'tokens', (await runCompiled(trx, run.page, run.pageParameters)).rows);
    const { items, revealed } = await viewsOf(deps, trx, principal, 'token:search', rows);
    return { result: { total: Number(count.rows[0]!.n), items }, rows, revealed };
  };
  const { result, rows, revealed } =
    dataTerms > 0 ? await vault.transaction(searchIn) : await vault.read(searchIn);
  await auditPage(deps, principal, 'search', rows, revealed);
  return result;
}

/** GET /tokens: a page of the live tokens the caller may read, filtered, each through its transform. */
import type { Principal } from '../access/principal.ts';
import type { Page, PageRequest } from '../common-types.ts';
import { checkPage } from '../validation/fields.ts';
import { containerScope } from './access-scope.ts';
import type { TokenFilter, TokenView } from './contract.ts';
import { checkFilter, filterCondition } from './list-filter.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { MAX_TOKEN_PAGE_SIZE, listPage } from './token-page.ts';

export async function listTokens(
  deps: TokenOperationDeps,
  principal: Principal,
  filter: TokenFilter,
  page: PageRequest,
): Promise<Page<TokenView>> {
  const scope = containerScope(principal, 'token:read');
  const window = checkPage(page, MAX_TOKEN_PAGE_SIZE);
  checkFilter(filter);
  return listPage(deps, principal, 'token:read', scope, window, (eb) => filterCondition(eb, filter));
}

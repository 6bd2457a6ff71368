/**
 * A page of tokens as list and search return it: each row through the caller's transform for the
 * permission asked, and the page's audit entries and activity marks in the next read-audit batch.
 */
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import { transformFor } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import type { Page } from '../common-types.ts';
import { verifiedRows } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import { scopeCondition } from './access-scope.ts';
import type { ContainerScope } from './access-scope.ts';
import type { TokenView } from './contract.ts';
import { dataOpener } from './operation-deps.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { TOKEN_MESSAGES, readEvent } from './token-audit.ts';
import { notExpired } from './token-store.ts';
import type { TokenRow } from './token-store.ts';
import { shownData, viewOf } from './token-view.ts';

/** Page size cap of list and search. */
export const MAX_TOKEN_PAGE_SIZE = 100;

export type PagePermission = 'token:read' | 'token:search';
export type TokenCondition = (eb: ExpressionBuilder<Database, 'tokens'>) => Expression<SqlBool>;

/** The page's rows as the caller sees them, each through `permission`'s transform. */
export async function viewsOf(
  deps: TokenOperationDeps,
  trx: Kysely<Database>,
  principal: Principal,
  permission: PagePermission,
  rows: readonly TokenRow[],
): Promise<TokenView[]> {
  const items: TokenView[] = [];
  for (const row of rows) {
    const transform = transformFor(principal, permission, row);
    items.push(viewOf(row, await shownData(transform, row, dataOpener(deps, trx, row)), principal));
  }
  return items;
}

/** The page's audit entries and activity marks, in the next read-audit batch. */
export function auditPage(
  deps: TokenOperationDeps,
  principal: Principal,
  rows: readonly TokenRow[],
): Promise<void> {
  return deps.reads.record({
    entries: rows.map((row) => ({ principal, event: readEvent(row, TOKEN_MESSAGES.read) })),
    activeTokens: { tenantId: principal.tenantId, tokenIds: rows.map((r) => r.id) },
  });
}

/** A page of live tokens in the caller's scope, each through `permission`'s transform. */
export async function listPage(
  deps: TokenOperationDeps,
  principal: Principal,
  permission: PagePermission,
  scope: ContainerScope,
  page: { offset: number; limit: number },
  condition: TokenCondition,
): Promise<Page<TokenView>> {
  const { vault } = deps;
  // One read keeps count and page consistent; the page's audit entries join the next
  // read-audit batch after it.
  const { result, rows } = await vault.read(async (trx) => {
    const now = vault.clock.now();
    const filtered = trx
      .selectFrom('tokens')
      .where('tokens.tenant_id', '=', principal.tenantId)
      .where(condition)
      .where((eb) => notExpired(eb, now))
      .where((eb) => scopeCondition(eb, scope));
    const count = await filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = verifiedRows(
      vault,
      'tokens',
      await filtered
        .selectAll('tokens')
        .orderBy('tokens.row_id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
    );
    const items = await viewsOf(deps, trx, principal, permission, rows);
    return { result: { total: Number(count.n), items }, rows };
  });
  await auditPage(deps, principal, rows);
  return result;
}

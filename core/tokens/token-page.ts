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
import type { AuditEvent } from '../audit/audit-log.ts';
import { tokenEntityType } from '../audit/entity-types.ts';
import { TOKEN_MESSAGES, revealedBy, type Audited } from './token-audit.ts';
import { notExpired } from './token-store.ts';
import type { TokenRow } from './token-store.ts';
import { shownData, viewOf } from './token-view.ts';

/** Page size cap of list and search. */
export const MAX_TOKEN_PAGE_SIZE = 100;

export type PagePermission = 'token:read' | 'token:search';
export type TokenCondition = (eb: ExpressionBuilder<Database, 'tokens'>) => Expression<SqlBool>;

/** A page's rows as the caller sees them, and the ids among them whose data it saw unmasked. */
export interface PageViews {
  readonly items: TokenView[];
  readonly revealed: ReadonlySet<string>;
}

/** The page's rows as the caller sees them, each through `permission`'s transform. */
export async function viewsOf(
  deps: TokenOperationDeps,
  trx: Kysely<Database>,
  principal: Principal,
  permission: PagePermission,
  rows: readonly TokenRow[],
): Promise<PageViews> {
  const items: TokenView[] = [];
  const revealed = new Set<string>();
  for (const row of rows) {
    const transform = transformFor(principal, permission, row);
    items.push(viewOf(row, await shownData(transform, row, dataOpener(deps, trx, row)), principal));
    if (revealedBy(transform)) revealed.add(row.id);
  }
  return { items, revealed };
}

/** What a page answered: a list (`GET /tokens`) or a search (`POST /tokens/search`). */
export type PageKind = 'list' | 'search';

/**
 * The audit entries of a page: one per entity type on it (`token`, or the older `card` and `bank`:
 * at most three), entity id `list` or `search`, naming every token of that type the page returned
 * in `entity_ids`, so a filter by any of those token ids finds it. `revealed` is whether the caller
 * saw any of them unmasked. One entry per request rather than per token keeps every read
 * attributable without the log growing by a record for each token a page shows; an empty page
 * writes none.
 */
export function pageEvents(
  tenantId: string,
  kind: PageKind,
  rows: readonly Audited[],
  revealed: ReadonlySet<string>,
): AuditEvent[] {
  const byType = new Map<string, string[]>();
  for (const row of rows) {
    const type = tokenEntityType(row.type);
    const ids = byType.get(type);
    if (ids === undefined) byType.set(type, [row.id]);
    else ids.push(row.id);
  }
  return [...byType].map(([entityType, ids]) => ({
    tenantId,
    entityType,
    entityId: kind,
    entityIds: ids,
    operation: 'read',
    message: kind === 'list' ? TOKEN_MESSAGES.listed : TOKEN_MESSAGES.searched,
    revealed: ids.some((id) => revealed.has(id)),
  }));
}

/** The page's audit entries and activity marks, in the next read-audit batch. */
export function auditPage(
  deps: TokenOperationDeps,
  principal: Principal,
  kind: PageKind,
  rows: readonly TokenRow[],
  revealed: ReadonlySet<string>,
): Promise<void> {
  return deps.reads.record({
    entries: pageEvents(principal.tenantId, kind, rows, revealed).map((event) => ({ principal, event })),
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
  const { result, rows, revealed } = await vault.read(async (trx) => {
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
    const { items, revealed } = await viewsOf(deps, trx, principal, permission, rows);
    return { result: { total: Number(count.n), items }, rows, revealed };
  });
  await auditPage(deps, principal, 'list', rows, revealed);
  return result;
}

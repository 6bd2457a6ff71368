/** GET /tokens/{id}: one token through the caller's read transform, audited as a read. */
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { transformOnExisting } from './access-scope.ts';
import type { TokenView } from './contract.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { TOKEN_MESSAGES, readEvent } from './token-audit.ts';
import { findToken, tokenNotFound } from './token-store.ts';
import { maskOf, needsData, shownOf, viewOf } from './token-view.ts';
import type { Shown } from './token-view.ts';

export async function getToken(
  deps: TokenOperationDeps,
  principal: Principal,
  id: string,
): Promise<TokenView> {
  const { vault, crypto, reads } = deps;
  authorize(principal, 'token:read');
  // No write transaction: one locked SELECT, then the entry joins the next read-audit batch.
  // The lookup and the opening answer at once where they can (the lock free, the data key at
  // hand), and only a promise is awaited: this read then costs no promise of its own.
  const now = vault.clock.now();
  const found = findToken(vault.db, vault, principal.tenantId, id, now);
  const row = found instanceof Promise ? await found : found;
  if (!row) throw tokenNotFound();
  const transform = transformOnExisting(principal, 'token:read', row);
  const mask = maskOf(row);
  let shown: Shown;
  if (needsData(transform, row, mask)) {
    const data = crypto.open(vault.db, row.tenant_id, row.id, row.data);
    shown = shownOf(transform, row, data instanceof Promise ? await data : data, mask);
  }
  const view = viewOf(row, shown, principal, mask);
  await reads.record({
    entries: [{ principal, event: readEvent(row, TOKEN_MESSAGES.read, transform) }],
    activeTokens: { tenantId: row.tenant_id, tokenIds: [row.id] },
  });
  return view;
}

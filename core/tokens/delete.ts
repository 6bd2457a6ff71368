/** DELETE /tokens/{id}: removes the token (token:delete on its container), audited. */
import { authorize } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { transformOnExisting } from './access-scope.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { TOKEN_MESSAGES, auditToken } from './token-audit.ts';
import { deleteTokenRow, findToken, tokenNotFound } from './token-store.ts';

export async function deleteToken(deps: TokenOperationDeps, principal: Principal, id: string): Promise<void> {
  const { vault } = deps;
  authorize(principal, 'token:delete');
  await vault.transaction(async (trx) => {
    const row = await findToken(trx, vault, principal.tenantId, id, vault.clock.now());
    if (!row) throw tokenNotFound();
    transformOnExisting(principal, 'token:delete', row);
    await deleteTokenRow(trx, row);
    await auditToken(vault, trx, principal, row, 'delete', TOKEN_MESSAGES.delete);
  });
}

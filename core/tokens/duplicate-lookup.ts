/**
 * The duplicate of a would-be token (create) or of a token's new value (update), found by
 * fingerprint when deduplication is on, and returned in its place audited as a read.
 */
import { deduplicationEnabled, duplicateView } from './dedup.ts';
import type { DuplicateOf } from './dedup.ts';
import type { TokenView } from './contract.ts';
import { dataOpener } from './operation-deps.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { TOKEN_MESSAGES, revealedBy } from './token-audit.ts';
import { readTransformOn } from './access-scope.ts';
import { findDuplicate } from './token-store.ts';
import type { WriteContext } from './write-context.ts';

/** The duplicate of a would-be token, returned instead (audited as a read), or null. */
export async function returnDuplicate(
  deps: TokenOperationDeps,
  ctx: WriteContext,
  type: string,
  fingerprint: string | null,
  flag: boolean | undefined,
  of: DuplicateOf,
  excludeRowId?: number,
): Promise<TokenView | null> {
  if (!deduplicationEnabled(ctx.principal, await ctx.tenantSettings(), flag)) return null;
  if (fingerprint === null) return null;
  // Two writers with the same fingerprint must not both miss each other's token.
  await deps.vault.lockFor(`dedup:${ctx.tenantId}:${type}:${fingerprint}`);
  const existing = await findDuplicate(
    ctx.trx,
    deps.vault,
    ctx.tenantId,
    type,
    fingerprint,
    ctx.now,
    excludeRowId,
  );
  if (!existing) return null;
  const view = await duplicateView(ctx.principal, existing, dataOpener(deps, ctx.trx, existing), of);
  const transform = readTransformOn(ctx.principal, existing);
  ctx.audit(existing, 'read', TOKEN_MESSAGES.duplicate, transform !== null && revealedBy(transform));
  ctx.active(existing.id, false);
  return view;
}

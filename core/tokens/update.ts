/**
 * PATCH /tokens/{id}: a merge patch over the token, checked as a new spec; a changed value may
 * return its duplicate instead (deduplication on); moving needs token:update on both containers.
 */
import { authorize, transformFor } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { readTransformOn, requireReveal, stricterTransform, transformOnExisting } from './access-scope.ts';
import type { TokenView } from './contract.ts';
import { returnDuplicate } from './duplicate-lookup.ts';
import { fingerprinted } from './fingerprinting.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { specColumns } from './spec-columns.ts';
import { TOKEN_MESSAGES, auditToken } from './token-audit.ts';
import { deriveValues } from './token-input.ts';
import { findToken, replaceSearchDigests, tokenNotFound, updateTokenRow } from './token-store.ts';
import { checkUpdate } from './token-update.ts';
import { shownData, viewOf } from './token-view.ts';
import { WriteContext } from './write-context.ts';

export async function updateToken(
  deps: TokenOperationDeps,
  principal: Principal,
  id: string,
  patch: Readonly<Record<string, unknown>>,
): Promise<TokenView> {
  const { vault, crypto } = deps;
  authorize(principal, 'token:update');
  return vault.transaction(async (trx) => {
    const ctx = new WriteContext(trx, principal, vault.clock.now(), crypto, vault);
    const row = await findToken(trx, vault, principal.tenantId, id, ctx.now);
    if (!row) throw tokenNotFound();
    transformOnExisting(principal, 'token:update', row);
    const current = await crypto.open(trx, row.tenant_id, row.id, row.data);
    const { spec, dataChanged, deduplicate, needsReveal } = checkUpdate(row, current, patch, ctx.now);
    // Before any caller-chosen expression is evaluated over the data: its value, its errors and
    // its fingerprint would all tell a caller without plaintext access something about the data.
    requireReveal(principal, needsReveal, [row.container, spec.container]);
    // Moving needs token:update on both containers. The response shows the
    // token where it now is, never more than the caller's read transform there allows.
    const moved = { id: row.id, container: spec.container };
    const updateTransform = transformFor(principal, 'token:update', moved);
    const transform = stricterTransform(updateTransform, readTransformOn(principal, moved) ?? 'redact');
    const derived = deriveValues(spec);
    const wanted = fingerprinted(await ctx.tenantSettings(), spec);
    const fingerprint = await ctx.fingerprint(row.type, wanted ? derived.fingerprintInput : null);
    const duplicate = await returnDuplicate(
      deps,
      ctx,
      row.type,
      fingerprint,
      deduplicate,
      'update',
      row.row_id,
    );
    if (duplicate) {
      await ctx.finish(vault);
      return duplicate;
    }

    const updated = await updateTokenRow(trx, vault, row, {
      ...(dataChanged ? { data: await crypto.seal(trx, row.tenant_id, row.id, spec.data) } : {}),
      ...specColumns(spec, fingerprint),
      modified_by: actorOf(principal).actor_id,
      modified_at: ctx.now.toISOString(),
    });
    await replaceSearchDigests(
      trx,
      row.tenant_id,
      row.row_id,
      await ctx.searchDigests(derived.searchValues),
      true,
    );
    await auditToken(vault, trx, principal, updated, 'update', TOKEN_MESSAGES.update);
    return viewOf(updated, await shownData(transform, updated, async () => spec.data), principal);
  });
}

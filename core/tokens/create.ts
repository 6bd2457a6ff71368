/**
 * Creating one token (POST /tokens, and each token of a tokenize request that cannot be written
 * in a batch): fingerprint and deduplication, the new id, the sealed row, its blind indexes, its
 * audit entry and activity mark, all in the caller's transaction.
 */
import type { Kysely } from 'kysely';
import { authorize, transformFor } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { withRowMac } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import type { CreateTokenRequest, CreateTokenResult } from './contract.ts';
import { returnDuplicate } from './duplicate-lookup.ts';
import { fingerprinted } from './fingerprinting.ts';
import { newTokenId } from './new-token-id.ts';
import type { TokenOperationDeps } from './operation-deps.ts';
import { specColumns } from './spec-columns.ts';
import { TOKEN_MESSAGES } from './token-audit.ts';
import { checkCreateRequest, deriveValues } from './token-input.ts';
import type { CheckedCreate, Derived } from './token-input.ts';
import { insertTokenRow, replaceSearchDigests } from './token-store.ts';
import { shownData, viewOf } from './token-view.ts';
import { WriteContext } from './write-context.ts';

/**
 * Work that belongs to a token's creation: it runs in the creating transaction, after the token is
 * written (or found as a duplicate), so a failure undoes the creation too (child tokens).
 */
export type AfterCreate = (trx: Kysely<Database>, result: CreateTokenResult) => Promise<void>;

/** One token of create or tokenize, inside the caller's transaction. */
export async function createOne(
  deps: TokenOperationDeps,
  ctx: WriteContext,
  checked: CheckedCreate,
  derived: Derived,
): Promise<CreateTokenResult> {
  const type = checked.definition.type;
  const transform = transformFor(ctx.principal, 'token:create', checked.container);
  const wanted = fingerprinted(await ctx.tenantSettings(), checked);
  const fingerprint = await ctx.fingerprint(type, wanted ? derived.fingerprintInput : null);
  const duplicate = await returnDuplicate(deps, ctx, type, fingerprint, checked.deduplicate, 'create');
  if (duplicate) return { token: duplicate, created: false };

  const id = await newTokenId(deps.vault, ctx, checked.id, checked.data);
  const at = ctx.now.toISOString();
  const row = await insertTokenRow(
    ctx.trx,
    withRowMac(deps.vault, 'tokens', {
      tenant_id: ctx.tenantId,
      id,
      type,
      data: await ctx.seal(id, checked.data),
      ...specColumns(checked, fingerprint),
      created_by: actorOf(ctx.principal).actor_id,
      created_at: at,
      modified_by: null,
      modified_at: null,
    }),
  );
  await replaceSearchDigests(
    ctx.trx,
    ctx.tenantId,
    row.row_id,
    await ctx.searchDigests(derived.searchValues),
    false,
  );
  ctx.audit(row, 'create', TOKEN_MESSAGES.create);
  ctx.active(id, true);
  const view = viewOf(row, await shownData(transform, row, async () => checked.data), ctx.principal);
  return { token: view, created: true };
}

/** POST /tokens: one token in a transaction of its own, with `after`'s work in it. */
export async function createToken(
  deps: TokenOperationDeps,
  principal: Principal,
  request: CreateTokenRequest,
  after?: AfterCreate,
): Promise<CreateTokenResult> {
  const { vault, crypto } = deps;
  authorize(principal, 'token:create');
  const now = vault.clock.now();
  const checked = checkCreateRequest(request, now);
  const derived = deriveValues(checked);
  return vault.transaction(async (trx) => {
    const ctx = new WriteContext(trx, principal, vault.clock.now(), crypto, vault);
    await ctx.tenantSettings(); // NOT_FOUND for a tenant that does not exist (an operator's stale id)
    const result = await createOne(deps, ctx, checked, derived);
    await ctx.finish(vault);
    if (after) await after(trx, result);
    return result;
  });
}

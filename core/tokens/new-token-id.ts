/**
 * The id of a new token: random, the caller's literal (a 409 when a live token holds it), or drawn
 * from an alias expression until a free one comes up.
 */
import { randomUUID } from 'node:crypto';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { ALIAS_ATTEMPTS } from '../expressions/index.ts';
import type { VaultHandle } from '../vault/types.ts';
import { isExpired } from './expiry.ts';
import { expireToken } from './expired-tokens.ts';
import { ID_CONTAINS_DATA, idDataCheck, resolveTokenId } from './token-id.ts';
import type { IdSpec } from './token-input.ts';
import { findTokenRow } from './token-store.ts';
import type { WriteContext } from './write-context.ts';

/** Whether `id` is held by a live token; an expired holder is swept on the spot. */
async function idTaken(vault: VaultHandle, ctx: WriteContext, id: string): Promise<boolean> {
  const row = await findTokenRow(ctx.trx, ctx.tenantId, id);
  if (!row) return false;
  if (!isExpired(row.expires_at, ctx.now)) return true;
  await expireToken(vault, ctx.trx, row);
  return false;
}

export async function newTokenId(
  vault: VaultHandle,
  ctx: WriteContext,
  spec: IdSpec,
  data: unknown,
): Promise<string> {
  switch (spec.kind) {
    case 'uuid':
      return randomUUID();
    case 'literal':
      if (await idTaken(vault, ctx, spec.id)) {
        throw new VaultError('CONFLICT', 'A token with this id already exists in the tenant.');
      }
      return spec.id;
    case 'alias': {
      // evaluateAlias wants a synchronous check; the store is asynchronous, so retry here. A
      // candidate carrying the data is drawn again (a random part may have repeated it by
      // chance); an expression whose every draw carries it copies the data itself: 400.
      let carriedData = 0;
      const containsData = idDataCheck(data);
      for (let attempt = 0; attempt < ALIAS_ATTEMPTS; attempt += 1) {
        const candidate = resolveTokenId(spec.expression, data, () => false);
        if (containsData(candidate)) carriedData += 1;
        else if (!(await idTaken(vault, ctx, candidate))) return candidate;
      }
      if (carriedData === ALIAS_ATTEMPTS) {
        throw validationError({ id: [`the alias expression produced an id that ${ID_CONTAINS_DATA}`] });
      }
      return randomUUID();
    }
  }
}

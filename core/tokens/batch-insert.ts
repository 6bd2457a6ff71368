/**
 * Tokens written together: the rows of a request's tokens prepared for one multi-row insert
 * (`prepareBatch`), and prepared batches of one transaction inserted together (`writeBatches`).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { transformFor } from '../access/authorize.ts';
import { actorOf } from '../access/principal.ts';
import type { Transform } from '../access/rules.ts';
import { withRowMac } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { CreateTokenResult } from './contract.ts';
import { deduplicationEnabled } from './dedup.ts';
import { fingerprinted } from './fingerprinting.ts';
import { specColumns } from './spec-columns.ts';
import { TOKEN_MESSAGES } from './token-audit.ts';
import { underPrefixSync } from './token-input.ts';
import { insertSearchDigests, insertTokenRows } from './token-store.ts';
import type { TokenRow } from './token-store.ts';
import type { PlannedToken } from './tokenize.ts';
import { viewOf } from './token-view.ts';
import type { Shown } from './token-view.ts';
import type { WriteContext } from './write-context.ts';

/** One request's tokens, prepared for a multi-row insert (see `prepareBatch`). */
export interface PreparedBatch {
  readonly ctx: WriteContext;
  readonly rows: ReadonlyArray<Omit<TokenRow, 'row_id'>>;
  readonly shown: readonly Shown[];
  readonly digests: ReadonlyArray<readonly Uint8Array[]>;
}

/**
 * What the response of a new token shows of its data. The mask is the value `deriveValues`
 * evaluated over the same data before the transaction (under the stored-mask budget a read gets):
 * evaluating it again here would cost a render per token for the same result.
 */
function createdData(transform: Transform, token: PlannedToken): Shown {
  if (transform === 'redact') return undefined;
  if (transform === 'reveal') return { value: token.checked.data };
  return token.checked.mask === null ? undefined : { value: token.derived.masked };
}

/** Whether `token` needs no lookup before its insert: a random id, no deduplication. */
function insertsWithoutLookup(
  ctx: WriteContext,
  settings: Readonly<Record<string, string>>,
  token: PlannedToken,
): boolean {
  if (token.checked.id.kind !== 'uuid') return false;
  try {
    return !deduplicationEnabled(ctx.principal, settings, token.checked.deduplicate);
  } catch {
    return false; // the one-by-one path raises the refusal
  }
}

/** What `token`'s fingerprint is computed from, or null when it gets none. */
function fingerprintInput(settings: Readonly<Record<string, string>>, token: PlannedToken): string | null {
  return fingerprinted(settings, token.checked) ? token.derived.fingerprintInput : null;
}

/**
 * The rows of one request's tokens, ready to insert together: only for tokens that need no lookup
 * before their insert (random ids, no deduplication); null when any does, and nothing was done.
 * Sealing, fingerprints and blind indexes are computed here; nothing is written (but a missing
 * tenant key, created on first need).
 */
export async function prepareBatch(
  vault: VaultHandle,
  ctx: WriteContext,
  tokens: readonly PlannedToken[],
): Promise<PreparedBatch | null> {
  const settings = await ctx.tenantSettings();
  if (!tokens.every((t) => insertsWithoutLookup(ctx, settings, t))) return null;
  const at = ctx.now.toISOString();
  const createdBy = actorOf(ctx.principal).actor_id;
  // The keyed functions are fetched once, up front and only when some token needs them (a
  // missing key is created on first need); the per-token work below is then synchronous, which
  // saves several promises per token.
  const fingerprint = tokens.some((t) => fingerprintInput(settings, t) !== null)
    ? await ctx.fingerprinter()
    : null;
  const searchHash = tokens.some((t) => t.derived.searchValues.length > 0) ? await ctx.searchHasher() : null;
  const seal = await ctx.sealer();
  const rows: Array<Omit<TokenRow, 'row_id'>> = [];
  const shown: Shown[] = [];
  const digests: Uint8Array[][] = [];
  for (const token of tokens) {
    underPrefixSync(token.path, () => {
      const { checked, derived } = token;
      const transform = transformFor(ctx.principal, 'token:create', checked.container);
      const type = checked.definition.type;
      const input = fingerprintInput(settings, token);
      const id = randomUUID();
      rows.push(
        withRowMac(vault, 'tokens', {
          tenant_id: ctx.tenantId,
          id,
          type,
          data: seal(id, checked.data),
          ...specColumns(checked, input === null || fingerprint === null ? null : fingerprint(type, input)),
          created_by: createdBy,
          created_at: at,
          modified_by: null,
          modified_at: null,
        }),
      );
      shown.push(createdData(transform, token));
      digests.push(searchHash === null ? [] : derived.searchValues.map((value) => searchHash(value)));
    });
  }
  return { ctx, rows, shown, digests };
}

/**
 * Writes prepared batches of one transaction together: one multi-row insert of every row, one of
 * their blind indexes, and each token's audit entry and activity mark queued on its context.
 */
export async function writeBatches(
  trx: Kysely<Database>,
  batches: readonly PreparedBatch[],
): Promise<CreateTokenResult[][]> {
  const rowIds = await insertTokenRows(
    trx,
    batches.flatMap((b) => b.rows),
  );
  let next = 0;
  const digests: Array<{ tenantId: string; rowId: number; digests: readonly Uint8Array[] }> = [];
  const results = batches.map((batch) =>
    batch.rows.map((fields, i): CreateTokenResult => {
      const row: TokenRow = { row_id: rowIds[next++]!, ...fields };
      digests.push({ tenantId: row.tenant_id, rowId: row.row_id, digests: batch.digests[i]! });
      batch.ctx.audit(row, 'create', TOKEN_MESSAGES.create);
      batch.ctx.active(row.id, true);
      return { token: viewOf(row, batch.shown[i], batch.ctx.principal), created: true };
    }),
  );
  await insertSearchDigests(trx, digests);
  return results;
}

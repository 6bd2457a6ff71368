/**
 * Removal of expired tokens: one on the spot (a write that finds an expired holder of the id it
 * wants) and all of them in batches (the sweeper). Each removal is audited with no actor: the
 * vault did it.
 */
import type { Kysely } from 'kysely';
import { sweepExpiredRows } from '../storage/expiry-sweep.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { TOKEN_MESSAGES, auditToken } from './token-audit.ts';
import { deleteTokenRow } from './token-store.ts';
import type { TokenRow } from './token-store.ts';

/** Rows removed per sweeper transaction. */
export const SWEEP_BATCH = 500;

/** Physically removes an expired token, with its audit record (no actor: the vault did it). */
export async function expireToken(vault: VaultHandle, trx: Kysely<Database>, row: TokenRow): Promise<void> {
  await deleteTokenRow(trx, row);
  await auditToken(vault, trx, null, row, 'delete', TOKEN_MESSAGES.expired);
}

/** Removes every expired token, SWEEP_BATCH per transaction; resolves with how many. */
export function sweepExpired(vault: VaultHandle): Promise<number> {
  return sweepExpiredRows(vault, {
    table: 'tokens',
    batch: SWEEP_BATCH,
    remove: (trx, row) => expireToken(vault, trx, row),
  });
}

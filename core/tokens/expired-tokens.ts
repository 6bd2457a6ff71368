/**
 * Removal of expired tokens: one on the spot (a write that finds an expired holder of the id it
 * wants) and all of them in batches (the sweeper). Each removal is audited with no actor: the
 * vault did it.
 */
import type { Kysely } from 'kysely';
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
export async function sweepExpired(vault: VaultHandle): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await vault.transaction(async (trx) => {
      // Servers sharing a database sweep one at a time: the next one finds nothing left to
      // expire, instead of deleting the same rows and auditing each expiry twice.
      await vault.lockFor('expiry-sweep');
      const rows = await trx
        .selectFrom('tokens')
        .selectAll()
        .where('expires_at', 'is not', null)
        .where('expires_at', '<=', vault.clock.now().toISOString())
        .orderBy('expires_at')
        .limit(SWEEP_BATCH)
        .execute();
      for (const row of rows) await expireToken(vault, trx, row);
      return rows.length;
    });
    total += removed;
    if (removed < SWEEP_BATCH) return total;
  }
}

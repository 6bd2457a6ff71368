import type { Kysely, Selectable } from 'kysely';
import type { VaultHandle } from '../vault/types.ts';
import type { Database } from './schema.ts';

/** The tables whose rows the vault removes for good once their `expires_at` has passed. */
export type ExpiringTable = 'tokens' | 'applications';

/** The lock every sweep holds in its transactions (one name for every table's sweep). */
const SWEEP_LOCK = 'expiry-sweep';

export interface ExpirySweep<T extends ExpiringTable> {
  readonly table: T;
  /** Rows removed per transaction. */
  readonly batch: number;
  /** Removes one expired row, with its audit entry, in the batch's transaction. */
  remove(trx: Kysely<Database>, row: Selectable<Database[T]>): Promise<void>;
}

/**
 * Removes every row of the sweep's table whose `expires_at` has passed, soonest expired first,
 * `batch` rows per transaction, each under the sweep lock; resolves with how many.
 */
export async function sweepExpiredRows<T extends ExpiringTable>(
  vault: Pick<VaultHandle, 'transaction' | 'lockFor' | 'clock'>,
  sweep: ExpirySweep<T>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await vault.transaction(async (trx) => {
      // Servers sharing a database sweep one at a time: the next one finds nothing left to expire,
      // instead of deleting the same rows and auditing each expiry twice.
      await vault.lockFor(SWEEP_LOCK);
      // `expires_at` is a column of each expiring table: the rows are the sweep's table's.
      const rows = (await trx
        .selectFrom(sweep.table as ExpiringTable)
        .selectAll()
        .where('expires_at', 'is not', null)
        .where('expires_at', '<=', vault.clock.now().toISOString())
        .orderBy('expires_at')
        .limit(sweep.batch)
        .execute()) as Selectable<Database[T]>[];
      for (const row of rows) await sweep.remove(trx, row);
      return rows.length;
    });
    total += removed;
    if (removed < sweep.batch) return total;
  }
}

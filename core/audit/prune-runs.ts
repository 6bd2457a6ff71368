import type { Kysely } from 'kysely';
import type { AuditLogsTable, Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { checkpointMessage, checkpointsOf } from './retention.ts';
import type { AuditCheckpoint, PruneResult } from './retention.ts';

export type RunEntry = Pick<AuditLogsTable, 'seq' | 'operation' | 'created_at' | 'prev_hash' | 'hash'>;

/** A run of consecutive entries to stand for with one checkpoint, with the checkpoints it absorbs. */
interface Run {
  first_seq: number;
  first_at: string;
  prev_hash: Uint8Array;
  last_seq: number;
  last_at: string;
  end_hash: Uint8Array;
  entries: number;
  /** Entries pruned now (the rest are earlier checkpoints' gaps it merges with). */
  fresh: number;
  absorbed: AuditCheckpoint[];
}

/**
 * Finds, along one tenant's chain walked in order, the maximal runs of read entries created before
 * the cutoff that may be removed (where they are stored allows it), never the chain's newest entry.
 * A run next to an earlier checkpoint's gap, on either side or both, merges with it: one gap, one
 * checkpoint. Entries the walk skips without reading (a block that stays as it is) end a run.
 */
export class RunTracker {
  readonly runs: Run[] = [];
  private open: Run | null = null;
  private expected = 1;

  constructor(
    private readonly checkpoints: ReadonlyMap<number, AuditCheckpoint>,
    private readonly cutoff: string,
    /** The chain's newest entry, which always stays. */
    public headSeq: number,
  ) {}

  entry(e: RunEntry, removable: boolean): void {
    if (e.seq > this.expected) this.gapBefore(e.seq);
    const prunable =
      removable && e.operation === 'read' && e.created_at < this.cutoff && e.seq !== this.headSeq;
    if (!prunable) this.close();
    else {
      this.open ??= {
        first_seq: e.seq,
        first_at: e.created_at,
        prev_hash: e.prev_hash,
        last_seq: e.seq,
        last_at: e.created_at,
        end_hash: e.hash,
        entries: 0,
        fresh: 0,
        absorbed: [],
      };
      this.open.last_seq = e.seq;
      this.open.last_at = e.created_at;
      this.open.end_hash = e.hash;
      this.open.entries++;
      this.open.fresh++;
    }
    this.expected = e.seq + 1;
  }

  /** Entries `first`..`last` that stay where they are, unread. */
  skip(first: number, last: number): void {
    if (first > this.expected) this.gapBefore(first);
    this.close();
    this.expected = Math.max(this.expected, last + 1);
  }

  finish(): Run[] {
    this.close();
    return this.runs;
  }

  /** A gap up to `seq`: an earlier checkpoint's, which a run joins, or a break no run spans. */
  private gapBefore(seq: number): void {
    const cp = this.checkpoints.get(this.expected);
    if (!cp || cp.last_seq !== seq - 1) {
      this.close();
      return;
    }
    this.open ??= {
      first_seq: cp.first_seq,
      first_at: cp.first_at,
      prev_hash: cp.prev_hash,
      last_seq: cp.last_seq,
      last_at: cp.last_at,
      end_hash: cp.end_hash,
      entries: 0,
      fresh: 0,
      absorbed: [],
    };
    this.open.last_seq = cp.last_seq;
    this.open.last_at = cp.last_at;
    this.open.end_hash = cp.end_hash;
    this.open.entries += cp.entries;
    this.open.absorbed.push(cp);
  }

  private close(): void {
    if (this.open && this.open.fresh > 0) this.runs.push(this.open);
    this.open = null;
  }
}

/**
 * Writes a checkpoint for each run (replacing the checkpoints it absorbs) and deletes the run's
 * entries still in the table, inside the caller's transaction.
 */
export async function commitRuns(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  tenantId: string,
  runs: readonly Run[],
): Promise<PruneResult> {
  let entries = 0;
  const now = vault.clock.now().toISOString();
  for (const run of runs) {
    const fields = {
      tenant_id: tenantId,
      first_seq: run.first_seq,
      last_seq: run.last_seq,
      entries: run.entries,
      first_at: run.first_at,
      last_at: run.last_at,
      prev_hash: run.prev_hash,
      end_hash: run.end_hash,
    };
    for (const old of run.absorbed) {
      await trx
        .deleteFrom('audit_checkpoints')
        .where('tenant_id', '=', tenantId)
        .where('first_seq', '=', old.first_seq)
        .execute();
    }
    await trx
      .insertInto('audit_checkpoints')
      .values({ ...fields, mac: vault.keyedHash('audit', checkpointMessage(fields)), created_at: now })
      .execute();
    await trx
      .deleteFrom('audit_logs')
      .where('tenant_id', '=', tenantId)
      .where('seq', '>=', run.first_seq)
      .where('seq', '<=', run.last_seq)
      .execute();
    entries += run.fresh;
  }
  return { entries, checkpoints: runs.length };
}

/** Walks a tenant's rows in the table (inside the caller's transaction) into `tracker`. */
export async function trackTableRows(
  trx: Kysely<Database>,
  tenantId: string,
  tracker: RunTracker,
  after = 0,
): Promise<void> {
  const rows = await trx
    .selectFrom('audit_logs')
    .select(['seq', 'operation', 'created_at', 'prev_hash', 'hash'])
    .where('tenant_id', '=', tenantId)
    .where('seq', '>', after)
    .orderBy('seq', 'asc')
    .execute();
  for (const row of rows) tracker.entry(row, true);
}

/** The table-only prune: every tenant's (or one's) runs, in one transaction. */
export async function pruneTable(
  vault: Pick<VaultHandle, 'keyedHash' | 'clock' | 'transaction' | 'lockFor'>,
  cutoff: string,
  tenantId?: string,
): Promise<PruneResult> {
  return vault.transaction(async (trx) => {
    // Servers sharing a database prune one at a time, so two never checkpoint the same run.
    await vault.lockFor('audit-prune');
    let query = trx.selectFrom('audit_heads').select(['tenant_id', 'seq']);
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    let total: PruneResult = { entries: 0, checkpoints: 0 };
    for (const head of await query.execute()) {
      const tracker = new RunTracker(await checkpointsOf(trx, head.tenant_id), cutoff, head.seq);
      await trackTableRows(trx, head.tenant_id, tracker);
      const done = await commitRuns(trx, vault, head.tenant_id, tracker.finish());
      total = { entries: total.entries + done.entries, checkpoints: total.checkpoints + done.checkpoints };
    }
    return total;
  });
}

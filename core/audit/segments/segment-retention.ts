import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { VaultHandle } from '../../vault/types.ts';
import type { PruneResult } from '../audit-store.ts';
import { RunTracker, commitRuns, trackTableRows } from '../prune-runs.ts';
import { checkpointsOf } from '../retention.ts';
import type { AuditCheckpoint } from '../retention.ts';
import type { BlockSummary, TenantSummary } from './block-summary.ts';
import type { SegmentRecord } from './segment-files.ts';
import { blocksOfView, turn, viewOf } from './segment-view.ts';
import type { SegmentView, SegmentsAccess } from './segment-view.ts';

export type PruneHost = Pick<VaultHandle, 'read' | 'transaction' | 'lockFor' | 'keyedHash' | 'clock'>;

/** Whether a block's summary says it may hold reads older than `cutoff`. */
function holdsOldReads(tenant: TenantSummary, cutoff: string): boolean {
  return tenant.operations.includes('read') && tenant.firstAt < cutoff;
}

/**
 * Whether a segment may hold reads older than `cutoff` and each of its blocks opens (a block that
 * does not cannot be carried into a new version): such segments are read and rewritten.
 */
function prunable(blocks: readonly BlockSummary[], cutoff: string): boolean {
  return (
    blocks.every((b) => !b.damaged) &&
    blocks.some((b) => Object.values(b.tenants).some((t) => holdsOldReads(t, cutoff)))
  );
}

/** Whether `seq` lies inside one of the (sorted) checkpoints' gaps. */
function covered(checkpoints: readonly AuditCheckpoint[], seq: number): boolean {
  let lo = 0;
  let hi = checkpoints.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cp = checkpoints[mid]!;
    if (seq < cp.first_seq) hi = mid - 1;
    else if (seq > cp.last_seq) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * Read retention over segments and the table, holding the store's `work` (no spill moves rows
 * meanwhile). 1. Each tenant's chain is walked: blocks whose summary may hold reads older than the
 * cutoff are read (in segments whose blocks all open), other blocks are skipped as they are. 2. One
 * transaction, as on the table alone, continues the walk over the table's rows, writes the runs'
 * checkpoints and deletes their rows still in the table. 3. Each such segment is rewritten without
 * the read entries a checkpoint now stands for (nor entries of dropped chains), synced, and its new
 * version committed; a segment left empty is dropped whole. A crash before 3 leaves entries that a
 * checkpoint also covers: they still verify, and the next prune removes them.
 */
export async function pruneSegments(
  store: SegmentsAccess,
  vault: PruneHost,
  cutoff: string,
  tenantId?: string,
): Promise<PruneResult> {
  return store.work.run(async () => {
    const view = await vault.read(viewOf);
    const rewritable = new Set(
      view.records
        .filter((r) => r.committed_bytes > 0 && prunable(store.files.blocksOf(r), cutoff))
        .map((r) => r.segment),
    );
    const heads = await vault.read((db) => {
      let query = db.selectFrom('audit_heads').select(['tenant_id', 'seq']);
      if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
      return query.execute();
    });
    const trackers = new Map<string, { tracker: RunTracker; after: number }>();
    for (const head of heads) {
      const tracker = new RunTracker(await readCheckpoints(vault, head.tenant_id), cutoff, head.seq);
      const walked = await walkSegments(store, view, head.tenant_id, tracker, rewritable, cutoff);
      trackers.set(head.tenant_id, walked);
    }
    const result = await vault.transaction(async (trx) => {
      await vault.lockFor('audit-prune');
      let total: PruneResult = { entries: 0, checkpoints: 0 };
      const epochs = await trx.selectFrom('audit_epochs').selectAll().execute();
      for (const [tenant, { tracker, after }] of trackers) {
        // A tenant deleted since the walk started a new chain: its walk no longer applies.
        const epoch = epochs.find((e) => e.tenant_id === tenant)?.epoch ?? 0;
        if (epoch !== (view.epochs.get(tenant) ?? 0)) continue;
        const head = await trx
          .selectFrom('audit_heads')
          .select('seq')
          .where('tenant_id', '=', tenant)
          .executeTakeFirst();
        if (!head) continue;
        tracker.headSeq = head.seq;
        await trackTableRows(trx, tenant, tracker, after);
        const done = await commitRuns(trx, vault, tenant, tracker.finish());
        total = { entries: total.entries + done.entries, checkpoints: total.checkpoints + done.checkpoints };
      }
      return total;
    });
    for (const record of view.records) {
      if (rewritable.has(record.segment)) await rewriteSegment(store, vault, record);
    }
    return result;
  });
}

function readCheckpoints(vault: PruneHost, tenantId: string) {
  return vault.read((db: Kysely<Database>) => checkpointsOf(db, tenantId));
}

/** Walks a tenant's segment blocks into `tracker`; returns it with the last sequence number walked. */
async function walkSegments(
  store: SegmentsAccess,
  view: SegmentView,
  tenantId: string,
  tracker: RunTracker,
  rewritable: ReadonlySet<number>,
  cutoff: string,
): Promise<{ tracker: RunTracker; after: number }> {
  let after = 0;
  for (const { record, block, tenant } of blocksOfView(store.files, view, tenantId)) {
    if (!tenant) continue;
    const read = rewritable.has(record.segment) && holdsOldReads(tenant, cutoff);
    const decoded = read ? await store.files.read(record, block) : null;
    if (!decoded) tracker.skip(tenant.firstSeq, tenant.lastSeq);
    else {
      for (const row of decoded.rows) if (row.tenant_id === tenantId) tracker.entry(row, true);
      await turn();
    }
    after = tenant.lastSeq;
  }
  return { tracker, after };
}

/** Writes a segment's next version without what retention removed, then commits it. */
async function rewriteSegment(store: SegmentsAccess, vault: PruneHost, record: SegmentRecord): Promise<void> {
  const { epochs, checkpoints } = await vault.read(async (db) => ({
    epochs: new Map(
      (await db.selectFrom('audit_epochs').selectAll().execute()).map((e) => [e.tenant_id, e.epoch]),
    ),
    checkpoints: await db
      .selectFrom('audit_checkpoints')
      .selectAll()
      .orderBy('tenant_id')
      .orderBy('first_seq')
      .execute(),
  }));
  const byTenant = new Map<string, AuditCheckpoint[]>();
  for (const cp of checkpoints) {
    const list = byTenant.get(cp.tenant_id);
    if (list) list.push(cp);
    else byTenant.set(cp.tenant_id, [cp]);
  }
  const next = await store.files.rewrite(record, (rows, tenants) =>
    rows.filter((row) => {
      if (tenants[row.tenant_id]?.epoch !== (epochs.get(row.tenant_id) ?? 0)) return false;
      return !(row.operation === 'read' && covered(byTenant.get(row.tenant_id) ?? [], row.seq));
    }),
  );
  if (!next) return;
  await vault.transaction(async (trx) => {
    await trx
      .updateTable('audit_segments')
      .set({ generation: next.generation, committed_bytes: next.bytes })
      .where('segment', '=', record.segment)
      .execute();
  });
  await store.retire(record.segment, record.generation);
  if (next.bytes === 0) await store.retire(record.segment, next.generation);
}

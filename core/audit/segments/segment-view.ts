import type { Kysely } from 'kysely';
import type { Mutex } from '../../backends/embedded/mutex.ts';
import type { Database } from '../../storage/schema.ts';
import type { BlockSummary, TenantSummary } from './block-summary.ts';
import type { SegmentFiles, SegmentRecord } from './segment-files.ts';

/** What the bookkeeping tables say at one moment: the committed segments and the tenants' epochs. */
export interface SegmentView {
  readonly records: readonly SegmentRecord[];
  readonly epochs: ReadonlyMap<string, number>;
}

/** A block of a view, with what it holds for the tenant asked about (null when damaged). */
export interface ViewBlock {
  readonly record: SegmentRecord;
  readonly block: BlockSummary;
  readonly tenant: TenantSummary | null;
}

/** What writers of segment files (spills, retention rewrites) share. */
export interface SegmentsAccess {
  /** Held by whatever writes segment files: one at a time. */
  readonly work: Mutex;
  readonly files: SegmentFiles;
  /** A segment version no row names any more: its files go once no reader may walk them. */
  retire(segment: number, generation: number): Promise<void>;
}

export async function viewOf(db: Kysely<Database>): Promise<SegmentView> {
  const records = await db.selectFrom('audit_segments').selectAll().orderBy('segment').execute();
  const epochs = await db.selectFrom('audit_epochs').selectAll().execute();
  return { records, epochs: new Map(epochs.map((e) => [e.tenant_id, e.epoch])) };
}

/**
 * The view's blocks that belong to the tenant's current chain (their epoch is the tenant's), oldest
 * first, and every damaged block (whose tenants nobody can tell).
 */
export function blocksOfView(files: SegmentFiles, view: SegmentView, tenantId: string): ViewBlock[] {
  const epoch = view.epochs.get(tenantId) ?? 0;
  const out: ViewBlock[] = [];
  for (const record of view.records) {
    for (const block of files.blocksOf(record)) {
      if (block.damaged) out.push({ record, block, tenant: null });
      const tenant = block.tenants[tenantId];
      if (tenant && tenant.epoch === epoch) out.push({ record, block, tenant });
    }
  }
  return out;
}

/** Lets other work run between blocks: a walk over many blocks never holds the event loop long. */
export const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

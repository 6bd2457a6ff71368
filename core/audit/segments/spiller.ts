import { sql } from 'kysely';
import type { AuditLogsTable } from '../../storage/schema.ts';
import type { AuditSegmentLimits } from './limits.ts';
import type { SegmentRecord } from './segment-files.ts';
import { viewOf } from './segment-view.ts';
import type { SegmentsAccess } from './segment-view.ts';
import type { SegmentHost } from './segmented-store.ts';

/** Rows read per hold of the vault's lock. */
const SPILL_READ_CHUNK = 256;
/** Rows per segment block: one sync and one small transaction per block. */
export const SPILL_BLOCK_ROWS = 1024;

/** A spill found its rows changed before it committed (a prune or a tenant's deletion ran). */
class SpillRaced extends Error {}

type SpilledRow = AuditLogsTable & { spill_rowid: number };

/**
 * Moves the oldest audit entries from sql.js into segment files, off the request path: each block
 * is read in short holds of the lock, compressed and sealed on no lock, appended and synced, then
 * ONE transaction deletes its rows and records the segment's new committed length. A crash before
 * that commit leaves the rows in the table and bytes past the committed length, cut at the next
 * open. Only one spill or rewrite writes segment files at a time (`work`).
 */
export class AuditSpiller {
  private running: Promise<void> | null = null;
  /** Spills start once the store is open (after the migrations), and stop at close. */
  private started = false;
  private stopped = false;
  private failure: unknown = null;

  constructor(
    private readonly vault: SegmentHost,
    private readonly store: SegmentsAccess,
    /** Rows in `audit_logs` (an upper bound), read without waiting; undefined when not free now. */
    private readonly pendingRows: () => number | undefined,
    private readonly limits: AuditSegmentLimits,
  ) {}

  /** After a commit: starts a spill in the background when the table holds more than the threshold. */
  poke(): void {
    if (this.running || !this.started || this.stopped) return;
    const pending = this.pendingRows();
    if (pending === undefined || pending <= this.limits.spillThresholdRows) return;
    this.running = this.spillAll()
      .catch((err: unknown) => {
        // The rows stay in the table (nothing is lost); the next commit tries again.
        this.failure = err;
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** Lets spills start (the store is open), and starts one if the table is already over the threshold. */
  start(): void {
    this.started = true;
    this.poke();
  }

  /** The last error of a background spill, for diagnostics. */
  get lastError(): unknown {
    return this.failure;
  }

  /** Moves every entry now in the table to segments (close, compact); waits for a spill running. */
  async drain(): Promise<void> {
    await this.running;
    if (this.started && !this.stopped) await this.spillAll();
  }

  /** Resolves once no spill runs. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No more spills start; waits for one running. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Spills blocks until the rows present when it started are all in segments. */
  private async spillAll(): Promise<void> {
    const top = await this.vault.read(async (db) => {
      const row = await db
        .selectFrom('audit_logs')
        .select(sql<number | null>`max(rowid)`.as('top'))
        .executeTakeFirst();
      return Number(row?.top ?? 0);
    });
    for (let raced = 0; ;) {
      const moved = await this.store.work.run(() => this.spillBlock(top));
      if (moved === 0) return;
      if (moved < 0 && ++raced > 3) return; // keeps racing with deletions: the next poke retries
    }
  }

  /** One block: rows moved, 0 when none were left, -1 when a deletion raced it (nothing moved). */
  private async spillBlock(top: number): Promise<number> {
    const rows: SpilledRow[] = [];
    let after = 0;
    while (rows.length < SPILL_BLOCK_ROWS) {
      const from = after;
      const chunk = await this.vault.read((db) =>
        db
          .selectFrom('audit_logs')
          .selectAll()
          .select(sql<number>`rowid`.as('spill_rowid'))
          .where(sql<number>`rowid`, '>', from)
          .where(sql<number>`rowid`, '<=', top)
          .orderBy(sql`rowid`)
          .limit(Math.min(SPILL_READ_CHUNK, SPILL_BLOCK_ROWS - rows.length))
          .execute(),
      );
      if (chunk.length === 0) break;
      rows.push(...chunk);
      after = chunk[chunk.length - 1]!.spill_rowid;
    }
    if (rows.length === 0) return 0;
    const view = await this.vault.read(viewOf);
    const open = view.records.filter((r) => r.rolled === 0 && r.committed_bytes > 0).at(-1);
    const last = view.records.at(-1);
    const target: SegmentRecord = open ?? {
      segment: (last?.segment ?? 0) + 1,
      generation: 0,
      committed_bytes: 0,
      rolled: 0,
    };
    const epochs = view.epochs;
    const stored = rows.map(({ spill_rowid: _, ...row }) => row);
    const block = await this.store.files.append(
      target.segment,
      target.generation,
      target.committed_bytes,
      stored,
      (tenant) => epochs.get(tenant) ?? 0,
    );
    const first = rows[0]!.spill_rowid;
    const end = target.committed_bytes + block.length;
    const tenants = [...new Set(stored.map((r) => r.tenant_id))];
    try {
      await this.vault.transaction(async (trx) => {
        const present = await trx
          .selectFrom('audit_logs')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where(sql<number>`rowid`, '>=', first)
          .where(sql<number>`rowid`, '<=', after)
          .executeTakeFirstOrThrow();
        const now = await trx
          .selectFrom('audit_epochs')
          .selectAll()
          .where('tenant_id', 'in', tenants)
          .execute();
        const epochChanged = now.some((e) => e.epoch !== (epochs.get(e.tenant_id) ?? 0));
        if (Number(present.n) !== rows.length || epochChanged) throw new SpillRaced();
        await trx
          .deleteFrom('audit_logs')
          .where(sql<number>`rowid`, '>=', first)
          .where(sql<number>`rowid`, '<=', after)
          .execute();
        await trx
          .insertInto('audit_segments')
          .values({ ...target, committed_bytes: end })
          .onConflict((c) => c.column('segment').doUpdateSet({ committed_bytes: end }))
          .execute();
      });
    } catch (err) {
      await this.store.files.discard(target.segment, target.generation, target.committed_bytes);
      if (err instanceof SpillRaced) return -1;
      throw err;
    }
    if (end >= this.limits.segmentRollBytes) await this.roll({ ...target, committed_bytes: end });
    return rows.length;
  }

  /** Closes a full segment: its index file first, then the row that says it is rolled. */
  private async roll(record: SegmentRecord): Promise<void> {
    await this.store.files.writeIndex(record);
    await this.vault.transaction(async (trx) => {
      await trx
        .updateTable('audit_segments')
        .set({ rolled: 1 })
        .where('segment', '=', record.segment)
        .execute();
    });
  }
}

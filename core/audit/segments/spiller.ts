import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { compileOnce, runCompiled } from '../../storage/compiled-queries.ts';
import type { Database } from '../../storage/schema.ts';
import type { Cell, RowTable } from './block-rows.ts';
import type { AuditSegmentLimits } from './limits.ts';
import { OPEN_INDEX_EVERY_BLOCKS } from './open-index.ts';
import type { SegmentRecord } from './segment-files.ts';
import { viewOf } from './segment-view.ts';
import type { SegmentView, SegmentsAccess } from './segment-view.ts';
import type { SegmentHost } from './segmented-store.ts';
import { spillReader, takeChunk } from './spill-rows.ts';
import type { SpillReader } from './spill-rows.ts';
import type { TransactionOptions } from '../../vault/storage-contract.ts';

/** A spill empties the database: it must run even when the database is at its size limit. */
const SPILL_TRANSACTION: TransactionOptions = { freesDatabaseSpace: true };

/** Rows read per hold of the vault's lock. */
const SPILL_READ_CHUNK = 256;
/** Rows per segment block: one sync and one small transaction per block. */
export const SPILL_BLOCK_ROWS = 1024;

/** The segment spills append to: the last one not rolled that holds bytes. */
function openSegmentOf(view: SegmentView): SegmentRecord | undefined {
  return view.records.filter((r) => r.rolled === 0 && r.committed_bytes > 0).at(-1);
}

/** A spill found its rows changed before it committed (a prune or a tenant's deletion ran). */
class SpillRaced extends Error {}

/** Parameters: the first and last rowid. */
const deleteRange = (db: Kysely<Database>) =>
  db
    .deleteFrom('audit_logs')
    .where(sql<number>`rowid`, '>=', 0)
    .where(sql<number>`rowid`, '<=', 0);

/** Parameters: segment, generation, committed bytes, rolled, committed bytes (again, for the update). */
const committedUpsert = (db: Kysely<Database>) =>
  db
    .insertInto('audit_segments')
    .values({ segment: 0, generation: 0, committed_bytes: 0, rolled: 0 })
    .onConflict((c) => c.column('segment').doUpdateSet({ committed_bytes: 0 }));

/** Whether a tenant of the block had its chain epoch raised (its log deleted) since the block was read. */
async function epochChanged(
  db: Kysely<Database>,
  tenants: readonly string[],
  epochs: ReadonlyMap<string, number>,
): Promise<boolean> {
  const query = compileOnce(db, `spill:epochs:${tenants.length}`, tenants.length, () =>
    db.selectFrom('audit_epochs').selectAll().where('tenant_id', 'in', tenants),
  );
  const { rows } = await runCompiled(db, query, tenants);
  return rows.some((e) => e.epoch !== (epochs.get(e.tenant_id) ?? 0));
}

/** What the spiller asks of the vault's database besides its query builder. */
export interface SpillTable {
  /** Rows in `audit_logs` (an upper bound), read without waiting; undefined when not free now. */
  pendingRows(): number | undefined;
  /** Runs one read statement in a hold of the vault's lock, each row an array of its columns. */
  readArrays(sql: string, parameters: readonly unknown[]): Promise<unknown[][]>;
}

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
    private readonly table: SpillTable,
    private readonly limits: AuditSegmentLimits,
  ) {}

  /** After a commit: starts a spill in the background when the table holds more than the threshold. */
  poke(): void {
    if (this.running || !this.started || this.stopped) return;
    const pending = this.table.pendingRows();
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

  /**
   * Moves every entry now in the table to segments (close, compact); waits for a spill running.
   * Then brings the open segment's index up to date, so that the next open reads no block.
   */
  async drain(): Promise<void> {
    await this.running;
    if (!this.started || this.stopped) return;
    await this.spillAll();
    await this.store.work.run(async () => {
      const open = openSegmentOf(await this.vault.read(viewOf));
      if (open) await this.store.files.refreshOpenIndex(open, 1);
    });
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
    const { top, reader } = await this.vault.read(async (db) => {
      const row = await db
        .selectFrom('audit_logs')
        .select(sql<number | null>`max(rowid)`.as('top'))
        .executeTakeFirst();
      return { top: Number(row?.top ?? 0), reader: await spillReader(db) };
    });
    for (let raced = 0; ;) {
      const moved = await this.store.work.run(() => this.spillBlock(top, reader));
      if (moved === 0) return;
      if (moved < 0 && ++raced > 3) return; // keeps racing with deletions: the next poke retries
    }
  }

  /** One block: rows moved, 0 when none were left, -1 when a deletion raced it (nothing moved). */
  private async spillBlock(top: number, reader: SpillReader): Promise<number> {
    const rows: Cell[][] = [];
    let after = 0;
    let first = 0;
    while (rows.length < SPILL_BLOCK_ROWS) {
      const limit = Math.min(SPILL_READ_CHUNK, SPILL_BLOCK_ROWS - rows.length);
      const chunk = await this.table.readArrays(reader.sql, [after, top, limit]);
      if (chunk.length === 0) break;
      if (rows.length === 0) first = chunk[0]![reader.columns.length] as number;
      after = takeChunk(chunk, rows)!;
    }
    if (rows.length === 0) return 0;
    const view = await this.vault.read(viewOf);
    const open = openSegmentOf(view);
    const last = view.records.at(-1);
    const target: SegmentRecord = open ?? {
      segment: (last?.segment ?? 0) + 1,
      generation: 0,
      committed_bytes: 0,
      rolled: 0,
    };
    const epochs = view.epochs;
    const count = rows.length;
    const table: RowTable = { columns: reader.columns, bytes: reader.bytes, rows };
    const block = await this.store.files.append(
      target.segment,
      target.generation,
      target.committed_bytes,
      table,
      (tenant) => epochs.get(tenant) ?? 0,
    );
    const end = target.committed_bytes + block.length;
    try {
      await this.vault.transaction(async (trx) => {
        if (await epochChanged(trx, Object.keys(block.tenants), epochs)) throw new SpillRaced();
        // The delete's own count tells whether the block's rows are all still there: a row gone
        // (a prune, a tenant's deletion) makes it short, and the transaction rolls back.
        const deleted = await runCompiled(
          trx,
          compileOnce(trx, 'spill:delete', 2, () => deleteRange(trx)),
          [first, after],
        );
        if (Number(deleted.numAffectedRows) !== count) throw new SpillRaced();
        const committed = compileOnce(trx, 'spill:committed', 5, () => committedUpsert(trx));
        await runCompiled(trx, committed, [target.segment, target.generation, end, target.rolled, end]);
      }, SPILL_TRANSACTION);
    } catch (err) {
      await this.store.files.discard(target.segment, target.generation, target.committed_bytes);
      if (err instanceof SpillRaced) return -1;
      throw err;
    }
    const committed = { ...target, committed_bytes: end };
    if (end >= this.limits.segmentRollBytes) await this.roll(committed);
    else await this.store.files.refreshOpenIndex(committed, OPEN_INDEX_EVERY_BLOCKS);
    return count;
  }

  /**
   * Closes a full segment: its index file first, then the row that says it is rolled; its open
   * index, no longer read, goes last.
   */
  private async roll(record: SegmentRecord): Promise<void> {
    await this.store.files.writeIndex(record);
    await this.vault.transaction(async (trx) => {
      await trx
        .updateTable('audit_segments')
        .set({ rolled: 1 })
        .where('segment', '=', record.segment)
        .execute();
    }, SPILL_TRANSACTION);
    await this.store.files.dropOpenIndex(record);
  }
}

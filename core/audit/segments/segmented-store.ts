import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { VaultError } from '../../errors/catalogue.ts';
import { Mutex } from '../../backends/embedded/mutex.ts';
import type { AuditLogsTable, Database } from '../../storage/schema.ts';
import type { VaultHandle } from '../../vault/types.ts';
import { entryOfRow } from '../audit-entry.ts';
import type {
  AuditLogEntry,
  AuditPage,
  AuditStore,
  ChainBreak,
  ChainReport,
  PruneResult,
} from '../audit-store.ts';
import { ChainChecker } from '../chain-check.ts';
import { entryMatches } from '../log-filter.ts';
import type { LogFilter } from '../log-filter.ts';
import { checkpointsOf } from '../retention.ts';
import {
  CHAIN_READ_CHUNK,
  chainHead,
  dropTableChain,
  listTable,
  tableRowsAfter,
  tableTenants,
} from '../sql-audit-store.ts';
import { summaryVerdict } from './block-summary.ts';
import type { SegmentFiles } from './segment-files.ts';
import { blocksOfView, turn, viewOf } from './segment-view.ts';
import type { SegmentView, SegmentsAccess, ViewBlock } from './segment-view.ts';
import { pruneSegments } from './segment-retention.ts';

export type SegmentHost = Pick<
  VaultHandle,
  'db' | 'read' | 'transaction' | 'keyedHash' | 'lockFor' | 'clock'
>;

type ChainItem = { readonly row: AuditLogsTable } | { readonly damaged: string };

/**
 * The embedded vault's audit log: the oldest entries in encrypted segment files beside the vault
 * (moved there by core/audit/segments/spiller.ts), the newest still in sql.js's `audit_logs`, read
 * as one log. Segment blocks are immutable once committed; a retention rewrite writes a new
 * version of a segment, and the files of the old one are removed only when no reader uses them.
 */
export class SegmentedAuditStore implements AuditStore, SegmentsAccess {
  /** Held by whatever writes segment files (a spill, a retention rewrite): one at a time. */
  readonly work = new Mutex();
  private readers = 0;
  private retired: Array<{ segment: number; generation: number }> = [];

  constructor(
    private readonly vault: SegmentHost,
    readonly files: SegmentFiles,
  ) {}

  /** Loads the segments' summaries (cutting what a spill left uncommitted). Once, at open. */
  async open(): Promise<void> {
    const { records } = await this.vault.read(viewOf);
    await this.files.open(records);
  }

  async close(): Promise<void> {
    await this.files.close();
  }

  async list(
    tenantId: string,
    filter: LogFilter,
    page: { offset: number; limit: number },
  ): Promise<AuditPage> {
    return this.reading(async () => {
      const { view, tail } = await this.vault.read(async (db) => ({
        view: await viewOf(db),
        tail: await listTable(db, tenantId, filter, page),
      }));
      let total = tail.total;
      const items: AuditLogEntry[] = [...tail.items];
      let skip = Math.max(0, page.offset - tail.total);
      for (const { record, block, tenant } of this.blocksOf(view, tenantId).reverse()) {
        if (!tenant) continue; // damaged: reported by verification, left out of listings
        const verdict = summaryVerdict(tenant, filter);
        if (verdict === 'none') continue;
        const full = items.length >= page.limit;
        if (verdict === 'all' && (full || skip >= tenant.count)) {
          total += tenant.count;
          skip -= Math.min(skip, tenant.count);
          continue;
        }
        const decoded = await this.files.read(record, block);
        if (!decoded) continue;
        const matching = decoded.rows.filter((r) => r.tenant_id === tenantId && entryMatches(r, filter));
        total += matching.length;
        for (let i = matching.length - 1; i >= 0; i--) {
          if (skip > 0) skip--;
          else if (items.length < page.limit) items.push(entryOfRow(matching[i]!));
        }
        await turn();
      }
      return { total, items };
    });
  }

  async verify(tenantId?: string): Promise<ChainReport> {
    return this.reading(async () => {
      const tenants = await this.tenantsOf(tenantId);
      let entries = 0;
      for (const tenant of tenants) {
        const checker = new ChainChecker(this.vault, tenant, await checkpointsOf(this.vault.db, tenant));
        const report = (firstBreak: ChainBreak): ChainReport => ({
          ok: false,
          tenants: tenants.length,
          entries: entries + checker.entries,
          firstBreak,
        });
        const walk = this.chain(tenant);
        let step = await walk.next();
        for (; !step.done; step = await walk.next()) {
          const item = step.value;
          if ('damaged' in item) return report(checker.unreadable(item.damaged));
          let broken = checker.add(item.row);
          if (broken && item.row.seq !== checker.nextSeq) {
            // A prune may have committed a checkpoint for this very gap since the walk began.
            checker.useCheckpoints(await checkpointsOf(this.vault.db, tenant));
            broken = checker.retry(item.row);
          }
          if (broken) return report(broken);
        }
        const broken = checker.finish(step.value);
        if (broken) return report(broken);
        entries += checker.entries;
      }
      return { ok: true, tenants: tenants.length, entries, firstBreak: null };
    });
  }

  async *entries(tenantId: string): AsyncIterable<AuditLogsTable> {
    this.readers++;
    try {
      for await (const item of this.chain(tenantId)) {
        if ('damaged' in item)
          throw new VaultError(
            'VAULT_CORRUPT',
            `The audit log of ${tenantId}: ${item.damaged} cannot be read.`,
          );
        yield item.row;
      }
    } finally {
      this.released();
    }
  }

  async tenants(): Promise<string[]> {
    return this.tenantsOf();
  }

  async count(): Promise<number> {
    const { view, tail } = await this.vault.read(async (db) => ({
      view: await viewOf(db),
      tail: await db
        .selectFrom('audit_logs')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    }));
    let total = Number(tail.n);
    for (const record of view.records) {
      for (const block of this.files.blocksOf(record)) {
        for (const [tenant, summary] of Object.entries(block.tenants)) {
          if (summary.epoch === (view.epochs.get(tenant) ?? 0)) total += summary.count;
        }
      }
    }
    return total;
  }

  /**
   * Drops the tenant's rows, head and checkpoints, and raises its epoch in the same transaction:
   * its entries already in segments carry the old epoch and no longer belong to its log (they stay
   * on disk, encrypted, until a retention rewrite of their segment leaves them out).
   */
  async dropChain(trx: Kysely<Database>, tenantId: string): Promise<void> {
    await dropTableChain(trx, tenantId);
    await trx
      .insertInto('audit_epochs')
      .values({ tenant_id: tenantId, epoch: 1 })
      .onConflict((c) => c.column('tenant_id').doUpdateSet({ epoch: sql<number>`audit_epochs.epoch + 1` }))
      .execute();
  }

  pruneReads(cutoff: string, tenantId?: string): Promise<PruneResult> {
    return pruneSegments(this, this.vault, cutoff, tenantId);
  }

  /**
   * Segment files no row names any more (a rewritten segment's old version): removed now, or
   * when the last reader that may still walk them is done.
   */
  async retire(segment: number, generation: number): Promise<void> {
    this.retired.push({ segment, generation });
    if (this.readers === 0) await this.removeRetired();
  }

  /** The view's blocks that belong to the tenant's current chain, oldest first; damaged ones too. */
  blocksOf(view: SegmentView, tenantId: string): ViewBlock[] {
    return blocksOfView(this.files, view, tenantId);
  }

  /**
   * A tenant's entries in chain order: the segments' blocks, then the table's rows. Spills that
   * commit meanwhile are followed: each read of the table also reads the committed segments again,
   * and blocks holding entries after the last one walked are walked before the rows read with them.
   * Returns the chain's head as read with the last rows.
   */
  private async *chain(
    tenantId: string,
  ): AsyncGenerator<ChainItem, { seq: number; hash: Uint8Array } | null> {
    let last = 0;
    let view = await this.vault.read(viewOf);
    for (;;) {
      for (const { record, block, tenant } of this.blocksOf(view, tenantId)) {
        if (tenant && tenant.lastSeq <= last) continue;
        const what = `block ${block.offset} of audit segment ${record.segment}`;
        const decoded = tenant ? await this.files.read(record, block) : null;
        if (!decoded) {
          yield { damaged: what };
          continue;
        }
        for (const row of decoded.rows) {
          if (row.tenant_id !== tenantId || row.seq <= last) continue;
          yield { row };
          last = row.seq;
        }
        await turn();
      }
      const after = last;
      const read = await this.vault.read(async (db) => ({
        view: await viewOf(db),
        rows: await tableRowsAfter(db, tenantId, after, CHAIN_READ_CHUNK),
        head: await chainHead(db, tenantId),
      }));
      const spilled = this.blocksOf(read.view, tenantId).some(
        ({ tenant }) => tenant && tenant.lastSeq > last,
      );
      view = read.view;
      if (spilled) continue; // rows moved to a segment since: walk the new blocks first
      for (const row of read.rows) {
        yield { row };
        last = row.seq;
      }
      if (read.rows.length < CHAIN_READ_CHUNK) return read.head ?? null;
    }
  }

  private async tenantsOf(tenantId?: string): Promise<string[]> {
    const { view, table } = await this.vault.read(async (db) => ({
      view: await viewOf(db),
      table: await tableTenants(db, tenantId),
    }));
    const all = new Set(table);
    for (const record of view.records) {
      for (const block of this.files.blocksOf(record)) {
        for (const [tenant, summary] of Object.entries(block.tenants)) {
          if (tenantId !== undefined && tenant !== tenantId) continue;
          if (summary.epoch === (view.epochs.get(tenant) ?? 0)) all.add(tenant);
        }
      }
    }
    return [...all].sort();
  }

  private async reading<T>(fn: () => Promise<T>): Promise<T> {
    this.readers++;
    try {
      return await fn();
    } finally {
      this.released();
    }
  }

  private released(): void {
    this.readers--;
    if (this.readers === 0 && this.retired.length > 0) void this.removeRetired().catch(() => undefined);
  }

  private async removeRetired(): Promise<void> {
    const retired = this.retired;
    this.retired = [];
    for (const { segment, generation } of retired) await this.files.remove(segment, generation);
  }
}

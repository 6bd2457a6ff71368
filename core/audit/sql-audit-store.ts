import type { Kysely } from 'kysely';
import type { AuditLogsTable, Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { LISTED_COLUMNS, entryOfRow } from './audit-entry.ts';
import type { AuditPage, AuditStore, ChainReport, PruneResult } from './audit-store.ts';
import { ChainChecker } from './chain-check.ts';
import { whereLogFilter } from './log-filter.ts';
import { pruneTable } from './prune-runs.ts';
import type { LogFilter } from './log-filter.ts';
import { checkpointsOf } from './retention.ts';

/** Rows read per query when a chain is walked: bounded memory and short turns on the vault's lock. */
export const CHAIN_READ_CHUNK = 1000;

type Reader = Pick<VaultHandle, 'keyedHash' | 'clock' | 'transaction' | 'lockFor'> &
  Partial<Pick<VaultHandle, 'read'>>;

/** Removes a tenant's rows, head and checkpoints from the tables, inside the caller's transaction. */
export async function dropTableChain(trx: Kysely<Database>, tenantId: string): Promise<void> {
  await trx.deleteFrom('audit_logs').where('tenant_id', '=', tenantId).execute();
  await trx.deleteFrom('audit_heads').where('tenant_id', '=', tenantId).execute();
  await trx.deleteFrom('audit_checkpoints').where('tenant_id', '=', tenantId).execute();
}

/** One page of the table's entries of a tenant, newest first, and how many match. */
export async function listTable(
  db: Kysely<Database>,
  tenantId: string,
  filter: LogFilter,
  page: { offset: number; limit: number },
): Promise<AuditPage> {
  const query = whereLogFilter(db.selectFrom('audit_logs').where('tenant_id', '=', tenantId), filter);
  const total = await query.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (page.limit <= 0) return { total: Number(total.n), items: [] };
  const items = await query
    .select(LISTED_COLUMNS)
    .orderBy('seq', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { total: Number(total.n), items: items.map(entryOfRow) };
}

/** A tenant's rows in the table with `seq` above `after`, oldest first, at most `limit`. */
export function tableRowsAfter(
  db: Kysely<Database>,
  tenantId: string,
  after: number,
  limit: number,
): Promise<AuditLogsTable[]> {
  return db
    .selectFrom('audit_logs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('seq', '>', after)
    .orderBy('seq', 'asc')
    .limit(limit)
    .execute();
}

/** Tenants with a head or entries in the tables, sorted. */
export async function tableTenants(db: Kysely<Database>, tenantId?: string): Promise<string[]> {
  let query = db
    .selectFrom('audit_heads')
    .select('tenant_id')
    .union(db.selectFrom('audit_logs').select('tenant_id'));
  if (tenantId !== undefined)
    query = db
      .selectFrom('audit_heads')
      .select('tenant_id')
      .where('tenant_id', '=', tenantId)
      .union(db.selectFrom('audit_logs').select('tenant_id').where('tenant_id', '=', tenantId));
  return (await query.execute()).map((r) => r.tenant_id).sort();
}

export function chainHead(
  db: Kysely<Database>,
  tenantId: string,
): Promise<{ seq: number; hash: Uint8Array } | undefined> {
  return db
    .selectFrom('audit_heads')
    .select(['seq', 'hash'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/**
 * The audit log kept in the `audit_logs` table (PostgreSQL, where memory does not bound it; and
 * the embedded vault's tail, through the segmented store).
 */
export class SqlAuditStore implements AuditStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Reader,
  ) {}

  list(tenantId: string, filter: LogFilter, page: { offset: number; limit: number }): Promise<AuditPage> {
    return this.reading((db) => listTable(db, tenantId, filter, page));
  }

  async verify(tenantId?: string): Promise<ChainReport> {
    const tenants = await tableTenants(this.db, tenantId);
    let entries = 0;
    for (const tenant of tenants) {
      const checker = new ChainChecker(this.vault, tenant, await checkpointsOf(this.db, tenant));
      let last = 0;
      const report = (firstBreak: NonNullable<ChainReport['firstBreak']>): ChainReport => ({
        ok: false,
        tenants: tenants.length,
        entries: entries + checker.entries,
        firstBreak,
      });
      for (;;) {
        const rows = await tableRowsAfter(this.db, tenant, last, CHAIN_READ_CHUNK);
        for (const row of rows) {
          const broken = checker.add(row);
          if (broken) return report(broken);
          last = row.seq;
        }
        if (rows.length < CHAIN_READ_CHUNK) break;
      }
      const broken = checker.finish((await chainHead(this.db, tenant)) ?? null);
      if (broken) return report(broken);
      entries += checker.entries;
    }
    return { ok: true, tenants: tenants.length, entries, firstBreak: null };
  }

  async *entries(tenantId: string): AsyncIterable<AuditLogsTable> {
    let last = 0;
    for (;;) {
      const rows = await tableRowsAfter(this.db, tenantId, last, CHAIN_READ_CHUNK);
      for (const row of rows) {
        yield row;
        last = row.seq;
      }
      if (rows.length < CHAIN_READ_CHUNK) return;
    }
  }

  tenants(): Promise<string[]> {
    return tableTenants(this.db);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('audit_logs')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  dropChain(trx: Kysely<Database>, tenantId: string): Promise<void> {
    return dropTableChain(trx, tenantId);
  }

  pruneReads(cutoff: string, tenantId?: string): Promise<PruneResult> {
    return pruneTable(this.vault, cutoff, tenantId);
  }

  /** A page and its total read together where the vault can (one hold of the embedded lock). */
  private reading<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.vault.read ? this.vault.read(fn) : fn(this.db);
  }
}

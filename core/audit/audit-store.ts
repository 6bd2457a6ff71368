import type { Kysely } from 'kysely';
import type { AuditLogsTable, Database } from '../storage/schema.ts';
import type { LogFilter } from './log-filter.ts';

/** An entry as the API shows it. */
export interface AuditLogEntry {
  readonly id: string;
  readonly tenant_id: string;
  readonly actor_id: string | null;
  readonly actor_type: string | null;
  readonly entity_type: string;
  readonly entity_id: string;
  readonly operation: string;
  readonly message: string;
  readonly created_at: string;
  readonly entity_ids: string[] | null;
  readonly revealed: boolean | null;
}

export interface ChainBreak {
  readonly tenantId: string;
  readonly seq: number;
  readonly entryId: string | null;
  readonly reason: string;
}

export interface ChainReport {
  readonly ok: boolean;
  readonly tenants: number;
  readonly entries: number;
  readonly firstBreak: ChainBreak | null;
}

export interface PruneResult {
  /** Read entries removed. */
  readonly entries: number;
  /** Checkpoints written (a run next to an earlier checkpoint replaces it with a merged one). */
  readonly checkpoints: number;
}

export interface AuditPage {
  readonly total: number;
  readonly items: AuditLogEntry[];
}

/**
 * Where a vault's audit log is read from. Entries are always written by `appendAuditBatch` into
 * `audit_logs` inside the transaction that makes the change; the store answers for them wherever
 * they are later kept: PostgreSQL keeps them in the table, the embedded vault moves the oldest into
 * encrypted segment files beside the vault (core/audit/segments/) and merges the two.
 */
export interface AuditStore {
  /** One page of a tenant's log, newest first, with the number of entries the filter matches. */
  list(tenantId: string, filter: LogFilter, page: { offset: number; limit: number }): Promise<AuditPage>;
  /** Recomputes every chain (or one tenant's); reports the first link that does not hold. */
  verify(tenantId?: string): Promise<ChainReport>;
  /** A tenant's stored rows in chain order (oldest first), every column: for copies and exports. */
  entries(tenantId: string): AsyncIterable<AuditLogsTable>;
  /** The tenants with entries or a chain head. */
  tenants(): Promise<string[]>;
  /** Entries stored, for all tenants. */
  count(): Promise<number>;
  /**
   * Removes a tenant's chain (tenant deletion), inside the caller's transaction: its entries, head
   * and checkpoints. The caller then appends the deletion record, which starts a new chain at 1.
   */
  dropChain(trx: Kysely<Database>, tenantId: string): Promise<void>;
  /**
   * Read retention (core/audit/retention.ts): removes read entries created before `cutoff` (ISO)
   * behind MAC'd checkpoints, for every tenant or one.
   */
  pruneReads(cutoff: string, tenantId?: string): Promise<PruneResult>;
}

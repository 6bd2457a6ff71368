import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { compileOnce, insertRowsCompiled, runCompiled } from '../storage/compiled-queries.ts';
import type { AuditLogsTable, Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { ChainReport } from './audit-store.ts';
import { LISTED_COLUMNS } from './audit-entry.ts';
import { GENESIS, linkMessage } from './chain.ts';
import { SqlAuditStore } from './sql-audit-store.ts';
import type { AuditOperation } from './entity-types.ts';

export interface AuditEvent {
  readonly tenantId: string;
  readonly entityType: string;
  readonly entityId: string;
  readonly operation: AuditOperation;
  /** Human summary. Never token data, keys or passwords. */
  readonly message: string;
  /** Every id the request touched, when one entry stands for several (a list, a search). */
  readonly entityIds?: readonly string[];
  /** For a read: whether the caller saw data unmasked. */
  readonly revealed?: boolean;
}

type AuditKeys = Pick<VaultHandle, 'keyedHash' | 'clock'> & Partial<Pick<VaultHandle, 'lockFor'>>;

/** One entry to append: who did it (null for the vault itself) and what happened. */
export interface AuditItem {
  readonly principal: Principal | null;
  readonly event: AuditEvent;
}

/**
 * Rows per multi-row insert: one bound value per column of AUDIT_COLUMNS, far below SQLite's limit on bound parameters,
 * and few distinct statement shapes for the connection's prepared-statement cache.
 */
const INSERT_CHUNK = 64;

/** Every column of an entry: what a listing shows, then its place in the chain. */
const AUDIT_COLUMNS = [...LISTED_COLUMNS, 'seq', 'prev_hash', 'hash'] as const satisfies ReadonlyArray<
  keyof AuditLogsTable
>;
/** Placeholder values naming every column in AUDIT_COLUMNS' order (the compiled shape). */
const AUDIT_TEMPLATE: AuditLogsTable = {
  id: '',
  tenant_id: '',
  actor_id: null,
  actor_type: null,
  entity_type: '',
  entity_id: '',
  operation: '',
  message: '',
  created_at: '',
  entity_ids: null,
  revealed: null,
  seq: 0,
  prev_hash: new Uint8Array(0),
  hash: new Uint8Array(0),
};

/**
 * Appends an entry to the tenant's chain. Call it with the transaction that makes the change, so
 * a rolled-back change leaves no entry and a committed one always has its entry.
 */
export async function appendAudit(
  trx: Kysely<Database>,
  vault: AuditKeys,
  principal: Principal | null,
  event: AuditEvent,
): Promise<void> {
  await appendAuditBatch(trx, vault, [{ principal, event }]);
}

/**
 * Appends entries in order, inside the caller's transaction: per tenant one read of the chain head,
 * multi-row inserts of the linked entries, and one head update. Each link is computed from the
 * head read here, under the transaction, so appends from any number of callers form one chain.
 */
export async function appendAuditBatch(
  trx: Kysely<Database>,
  vault: AuditKeys,
  items: readonly AuditItem[],
): Promise<void> {
  const byTenant = new Map<string, AuditItem[]>();
  for (const item of items) {
    const list = byTenant.get(item.event.tenantId);
    if (list) list.push(item);
    else byTenant.set(item.event.tenantId, [item]);
  }
  const createdAt = vault.clock.now().toISOString();
  for (const [tenantId, tenantItems] of byTenant) {
    // The head is read then moved: appends to one chain run one at a time, or the chain would fork.
    await vault.lockFor?.(`audit:${tenantId}`);
    const headQuery = compileOnce(trx, 'audit_heads:select', 1, () =>
      trx.selectFrom('audit_heads').select(['seq', 'hash']).where('tenant_id', '=', ''),
    );
    const head = (await runCompiled(trx, headQuery, [tenantId])).rows[0];
    let prev = head?.hash ?? GENESIS;
    let seq = head?.seq ?? 0;
    const rows = tenantItems.map(({ principal, event }): AuditLogsTable => {
      const actor = principal ? actorOf(principal) : { actor_id: null, actor_type: null };
      seq += 1;
      const entry = {
        id: randomUUID(),
        tenant_id: tenantId,
        seq,
        actor_id: actor.actor_id,
        actor_type: actor.actor_type,
        entity_type: event.entityType,
        entity_id: event.entityId,
        operation: event.operation,
        message: event.message,
        created_at: createdAt,
        entity_ids: event.entityIds === undefined ? null : JSON.stringify(event.entityIds),
        revealed: event.revealed === undefined ? null : event.revealed ? 1 : 0,
      };
      const hash = vault.keyedHash('audit', linkMessage(prev, entry));
      const row = { ...entry, prev_hash: prev, hash };
      prev = hash;
      return row;
    });
    await insertRowsCompiled(
      trx,
      {
        key: 'audit_logs:insert',
        columns: AUDIT_COLUMNS,
        chunk: INSERT_CHUNK,
        template: AUDIT_TEMPLATE,
        build: (part) => trx.insertInto('audit_logs').values(part),
      },
      rows,
    );
    const moveHead = compileOnce(trx, 'audit_heads:upsert', 3, () =>
      trx
        .insertInto('audit_heads')
        .values({ tenant_id: '', seq: 0, hash: new Uint8Array(0) })
        .onConflict((c) =>
          c
            .column('tenant_id')
            .doUpdateSet((eb) => ({ seq: eb.ref('excluded.seq'), hash: eb.ref('excluded.hash') })),
        ),
    );
    await runCompiled(trx, moveHead, [tenantId, seq, prev]);
  }
}

export type { LogFilter } from './log-filter.ts';
export type { AuditLogEntry, ChainReport } from './audit-store.ts';

type Stored = Pick<VaultHandle, 'keyedHash' | 'clock' | 'transaction' | 'lockFor'> &
  Partial<Pick<VaultHandle, 'read' | 'audit'>>;

/**
 * Recomputes every chain (or one tenant's) wherever the vault keeps it (core/audit/chain-check.ts
 * says what is reported).
 */
export function verifyAuditChains(
  db: Kysely<Database>,
  vault: Stored,
  tenantId?: string,
): Promise<ChainReport> {
  return (vault.audit ?? new SqlAuditStore(db, vault)).verify(tenantId);
}

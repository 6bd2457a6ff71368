import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { compileOnce, insertRowsCompiled, runCompiled } from '../storage/compiled-queries.ts';
import type { AuditLogsTable, Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { GENESIS, linkMessage } from './chain.ts';
import { entityIdsOf, whereLogFilter } from './log-filter.ts';
import type { LogFilter } from './log-filter.ts';
import { checkpointHolds, checkpointsOf } from './retention.ts';
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

type AuditKeys = Pick<VaultHandle, 'keyedHash' | 'clock'> & Partial<Pick<VaultHandle, 'lockFor'>>;

/** One entry to append: who did it (null for the vault itself) and what happened. */
export interface AuditItem {
  readonly principal: Principal | null;
  readonly event: AuditEvent;
}

/**
 * Rows per multi-row insert: 13 bound values each, far below SQLite's limit on bound parameters,
 * and few distinct statement shapes for the connection's prepared-statement cache.
 */
const INSERT_CHUNK = 64;

const AUDIT_COLUMNS = [
  'id',
  'tenant_id',
  'seq',
  'actor_id',
  'actor_type',
  'entity_type',
  'entity_id',
  'operation',
  'message',
  'created_at',
  'entity_ids',
  'revealed',
  'prev_hash',
  'hash',
] as const satisfies ReadonlyArray<keyof AuditLogsTable>;
/** Placeholder values naming every column in AUDIT_COLUMNS' order (the compiled shape). */
const AUDIT_TEMPLATE: AuditLogsTable = {
  id: '',
  tenant_id: '',
  seq: 0,
  actor_id: null,
  actor_type: null,
  entity_type: '',
  entity_id: '',
  operation: '',
  message: '',
  created_at: '',
  entity_ids: null,
  revealed: null,
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

/** Removes a tenant's chain (tenant deletion); the caller then appends the deletion record. */
export async function dropAuditChain(trx: Kysely<Database>, tenantId: string): Promise<void> {
  await trx.deleteFrom('audit_logs').where('tenant_id', '=', tenantId).execute();
  await trx.deleteFrom('audit_heads').where('tenant_id', '=', tenantId).execute();
  await trx.deleteFrom('audit_checkpoints').where('tenant_id', '=', tenantId).execute();
}

export type { LogFilter } from './log-filter.ts';

/** A stored row as the API shows it. */
export function entryOfRow(
  row: Omit<AuditLogsTable, 'seq' | 'prev_hash' | 'hash'> & Partial<Pick<AuditLogsTable, 'seq'>>,
): AuditLogEntry {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    actor_id: row.actor_id,
    actor_type: row.actor_type,
    entity_type: row.entity_type,
    entity_id: row.entity_id,
    operation: row.operation,
    message: row.message,
    created_at: row.created_at,
    entity_ids: row.entity_ids === null ? null : entityIdsOf(row.entity_ids),
    revealed: row.revealed === null ? null : row.revealed === 1,
  };
}

/** One page of a tenant's log, newest first. */
export async function listAudit(
  db: Kysely<Database>,
  tenantId: string,
  filter: LogFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; items: AuditLogEntry[] }> {
  const query = whereLogFilter(db.selectFrom('audit_logs').where('tenant_id', '=', tenantId), filter);
  const total = await query.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const items = await query
    .select([
      'id',
      'tenant_id',
      'actor_id',
      'actor_type',
      'entity_type',
      'entity_id',
      'operation',
      'message',
      'created_at',
      'entity_ids',
      'revealed',
    ])
    .orderBy('seq', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { total: Number(total.n), items: items.map(entryOfRow) };
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

/**
 * Recomputes every chain. Reports the first link that does not hold: an altered entry (its MAC),
 * a removed one (a gap in `seq` or a `prev_hash` that does not match), reordered ones (both), or
 * entries removed from the end (the head no longer matches). A gap of pruned read entries passes
 * only through its checkpoint (core/audit/retention.ts): a valid MAC, the hash before the gap,
 * and the next entry linking to the checkpoint's end hash.
 */
export async function verifyAuditChains(
  db: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash'>,
  tenantId?: string,
): Promise<ChainReport> {
  let tenantsQuery = db
    .selectFrom('audit_heads')
    .select('tenant_id')
    .union(db.selectFrom('audit_logs').select('tenant_id'));
  if (tenantId)
    tenantsQuery = db
      .selectFrom('audit_heads')
      .select('tenant_id')
      .where('tenant_id', '=', tenantId)
      .union(db.selectFrom('audit_logs').select('tenant_id').where('tenant_id', '=', tenantId));
  const tenants = (await tenantsQuery.execute()).map((r) => r.tenant_id).sort();
  let entries = 0;
  for (const tenant of tenants) {
    const rows = await db
      .selectFrom('audit_logs')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .orderBy('seq', 'asc')
      .execute();
    const checkpoints = await checkpointsOf(db, tenant);
    let prev: Uint8Array = GENESIS;
    let expectedSeq = 1;
    const broken = (seq: number, entryId: string | null, reason: string): ChainReport => ({
      ok: false,
      tenants: tenants.length,
      entries: entries,
      firstBreak: { tenantId: tenant, seq, entryId, reason },
    });
    for (const row of rows) {
      entries++;
      // A gap is allowed only where a checkpoint made with the audit key vouches for exactly it.
      const checkpoint = row.seq !== expectedSeq ? checkpoints.get(expectedSeq) : undefined;
      if (checkpoint && checkpoint.last_seq === row.seq - 1 && checkpointHolds(vault, checkpoint, prev)) {
        prev = checkpoint.end_hash;
        expectedSeq = row.seq;
      }
      if (row.seq !== expectedSeq)
        return broken(expectedSeq, row.id, `entry ${expectedSeq} is missing (found ${row.seq} next)`);
      if (!constantTimeEqual(row.prev_hash, prev))
        return broken(row.seq, row.id, 'does not link to the entry before it');
      const hash = vault.keyedHash('audit', linkMessage(prev, row));
      if (!constantTimeEqual(hash, row.hash)) return broken(row.seq, row.id, 'its contents were altered');
      prev = hash;
      expectedSeq++;
    }
    const head = await db
      .selectFrom('audit_heads')
      .select(['seq', 'hash'])
      .where('tenant_id', '=', tenant)
      .executeTakeFirst();
    const lastSeq = expectedSeq - 1;
    if (!head) {
      if (rows.length > 0) return broken(lastSeq, null, 'the chain head is missing');
    } else if (head.seq !== lastSeq || !constantTimeEqual(head.hash, prev)) {
      return broken(lastSeq + 1, null, `entries after ${lastSeq} were removed (the head is at ${head.seq})`);
    }
  }
  return { ok: true, tenants: tenants.length, entries, firstBreak: null };
}

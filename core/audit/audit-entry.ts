import type { AuditLogsTable } from '../storage/schema.ts';
import type { AuditLogEntry } from './audit-store.ts';
import { entityIdsOf } from './log-filter.ts';

/** The columns a listed entry shows: all but its place in the chain (`seq`, `prev_hash`, `hash`). */
export const LISTED_COLUMNS = [
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
] as const satisfies ReadonlyArray<keyof AuditLogsTable>;

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

import type { SelectQueryBuilder } from 'kysely';
import type { ActorType } from '../access/principal.ts';
import type { Database } from '../storage/schema.ts';
import type { AuditOperation } from './entity-types.ts';

/** What a list of the audit log may be narrowed to; every field set must match. */
export interface LogFilter {
  readonly entityType?: string;
  /** Matches an entry about this id, or one entry standing for several ids that include it. */
  readonly entityId?: string;
  readonly actorId?: string;
  readonly actorType?: ActorType;
  readonly operation?: AuditOperation;
  /** Inclusive, as `toISOString()`. */
  readonly startDate?: string;
  /** Exclusive, as `toISOString()`. */
  readonly endDate?: string;
}

/** The stored fields a filter looks at. */
export interface FilterableEntry {
  readonly entity_type: string;
  readonly entity_id: string;
  /** JSON array text, as stored, or null. */
  readonly entity_ids: string | null;
  readonly actor_id: string | null;
  readonly actor_type: string | null;
  readonly operation: string;
  readonly created_at: string;
}

/** Whether a stored entry passes `filter`: the one rule, for entries read from anywhere. */
export function entryMatches(entry: FilterableEntry, filter: LogFilter): boolean {
  if (filter.entityType !== undefined && entry.entity_type !== filter.entityType) return false;
  if (filter.entityId !== undefined && entry.entity_id !== filter.entityId) {
    if (entry.entity_ids === null || !entityIdsOf(entry.entity_ids).includes(filter.entityId)) return false;
  }
  if (filter.actorId !== undefined && entry.actor_id !== filter.actorId) return false;
  if (filter.actorType !== undefined && entry.actor_type !== filter.actorType) return false;
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false;
  if (filter.startDate !== undefined && entry.created_at < filter.startDate) return false;
  if (filter.endDate !== undefined && entry.created_at >= filter.endDate) return false;
  return true;
}

/** The ids of a stored `entity_ids` value (a JSON array of strings). */
export function entityIdsOf(stored: string | null): string[] {
  if (stored === null) return [];
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * The same rule as SQL, on a query over `audit_logs`. An id inside `entity_ids` is found by its
 * quoted form: ids are UUIDs or other strings JSON writes without escapes, so `"<id>"` occurs in
 * the array's text exactly when the id is one of its elements.
 */
export function whereLogFilter<O>(
  query: SelectQueryBuilder<Database, 'audit_logs', O>,
  filter: LogFilter,
): SelectQueryBuilder<Database, 'audit_logs', O> {
  let q = query;
  if (filter.entityType !== undefined) q = q.where('entity_type', '=', filter.entityType);
  if (filter.entityId !== undefined) {
    const id = filter.entityId;
    q = q.where((eb) =>
      eb.or([
        eb('entity_id', '=', id),
        eb.and([
          eb('entity_ids', 'is not', null),
          eb(eb.fn('instr', ['entity_ids', eb.val(JSON.stringify(id))]), '>', 0),
        ]),
      ]),
    );
  }
  if (filter.actorId !== undefined) q = q.where('actor_id', '=', filter.actorId);
  if (filter.actorType !== undefined) q = q.where('actor_type', '=', filter.actorType);
  if (filter.operation !== undefined) q = q.where('operation', '=', filter.operation);
  if (filter.startDate !== undefined) q = q.where('created_at', '>=', filter.startDate);
  if (filter.endDate !== undefined) q = q.where('created_at', '<', filter.endDate);
  return q;
}

import type { AuditLogsTable } from '../storage/schema.ts';

/** The first link's predecessor. */
export const GENESIS = new Uint8Array(32);

type ChainedFields = Pick<
  AuditLogsTable,
  | 'id'
  | 'tenant_id'
  | 'seq'
  | 'actor_id'
  | 'actor_type'
  | 'entity_type'
  | 'entity_id'
  | 'operation'
  | 'message'
  | 'created_at'
> &
  Partial<Pick<AuditLogsTable, 'entity_ids' | 'revealed'>>;

/**
 * The bytes a link's MAC covers: the previous hash, then every field of the entry in a fixed order.
 * `entity_ids` and `revealed` came later: they are covered when set, and an entry without them
 * hashes exactly as entries written before they existed, so older chains still verify.
 */
export function linkMessage(prev: Uint8Array, entry: ChainedFields): Uint8Array {
  const fields: unknown[] = [
    entry.tenant_id,
    entry.seq,
    entry.id,
    entry.actor_id,
    entry.actor_type,
    entry.entity_type,
    entry.entity_id,
    entry.operation,
    entry.message,
    entry.created_at,
  ];
  const entityIds = entry.entity_ids ?? null;
  const revealed = entry.revealed ?? null;
  if (entityIds !== null || revealed !== null) fields.push(entityIds, revealed);
  return Buffer.concat([prev, Buffer.from(JSON.stringify(fields), 'utf8')]);
}

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
>;

/** The bytes a link's MAC covers: the previous hash, then every field of the entry in a fixed order. */
export function linkMessage(prev: Uint8Array, entry: ChainedFields): Uint8Array {
  const fields = JSON.stringify([
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
  ]);
  return Buffer.concat([prev, Buffer.from(fields, 'utf8')]);
}

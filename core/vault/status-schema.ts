import { Type, type Static } from 'typebox';
import { VaultHeadroomSchema } from '../storage/headroom.ts';

/**
 * What `svc vault status` shows, in the one shape core returns, the operator route answers and the
 * CLI prints (its JSON as it is): never key material, readable without the key. On PostgreSQL there
 * is no snapshot, journal or lock: `snapshot_bytes` is the database's size and the others are empty.
 */
export const LockHolderStatusSchema = Type.Object({
  pid: Type.Integer(),
  host: Type.String(),
  started_at: Type.String(),
  /** Set when a server holds the vault. */
  url: Type.Optional(Type.String()),
});

export const VaultStatusSchema = Type.Object({
  path: Type.String(),
  journal_path: Type.String(),
  vault_id: Type.String(),
  created_at: Type.String(),
  format_version: Type.Integer(),
  key_source: Type.Union([Type.Literal('passphrase'), Type.Literal('key')]),
  key_terms: Type.Array(Type.Integer()),
  snapshot_bytes: Type.Integer(),
  snapshot_sequence: Type.Integer(),
  snapshot_written_at: Type.String(),
  journal_bytes: Type.Integer(),
  /** Complete records in the journal (commits since the snapshot). */
  journal_records: Type.Integer(),
  lock_holder: Type.Union([LockHolderStatusSchema, Type.Null()]),
  headroom: VaultHeadroomSchema,
});

export type VaultStatus = Static<typeof VaultStatusSchema>;
export type LockHolderStatus = Static<typeof LockHolderStatusSchema>;

import type { ColumnType, Generated } from 'kysely';

/**
 * Row types of the vault database, as Kysely sees them. Every id, timestamp and random value is
 * computed in JS and passed as a parameter, so that journal replay is deterministic.
 * Timestamps are ISO 8601 strings in UTC.
 */
export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: string;
}

/** Small vault-wide facts (e.g. whether the embedded default was bootstrapped). */
export interface VaultMetaTable {
  key: string;
  value: string;
}

export interface TenantsTable {
  id: string;
  /** The user who owns the tenant (null for tenants made by an operator before a user existed). */
  owner_id: string | null;
  name: string;
  /** JSON object of string → string. */
  settings: string;
  created_at: string;
  created_by: string | null;
  modified_at: string | null;
  modified_by: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

export interface ApplicationsTable {
  id: string;
  tenant_id: string;
  name: string;
  type: string;
  /** Keyed BLAKE2b of the API key; the key itself is never stored. */
  key_hash: Uint8Array;
  /** JSON array of permission names. */
  permissions: string;
  /** JSON array of access rules, or null when the application uses plain permissions. */
  rules: string | null;
  created_at: string;
  created_by: string | null;
  modified_at: string | null;
  modified_by: string | null;
  /** Expiring applications only: when the key stops working (ISO UTC); null otherwise. */
  expires_at: string | null;
  /** 1 when this private application may create expiring applications, else 0. */
  can_create_expiring_applications: Generated<number>;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

/** Per-tenant keys (data, fingerprint, search), wrapped by the keyring term named in `term`. */
export interface TenantKeysTable {
  tenant_id: string;
  purpose: string;
  term: number;
  wrapped: Uint8Array;
  created_at: string;
}

/** People who sign in (tenant owners and members). E-mail is stored lower-cased. */
export interface UsersTable {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  /** libsodium crypto_pwhash_str (Argon2id) string, or null when no password was set yet. */
  password_hash: string | null;
  created_at: string;
  modified_at: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

export interface MembersTable {
  id: string;
  tenant_id: string;
  user_id: string;
  /** `OWNER` or `ADMIN`. */
  role: string;
  created_at: string;
  created_by: string | null;
  modified_at: string | null;
  modified_by: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

/** Signed-in sessions; only a keyed hash of the bearer token is kept. */
export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: Uint8Array;
  created_at: string;
  expires_at: string;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

/**
 * The audit log. Each tenant's entries form a hash chain: `hash` = keyed BLAKE2b over `prev_hash`
 * and the entry's fields, `seq` counts from 1 per tenant. No foreign key to tenants: the record of
 * a tenant's deletion outlives the tenant.
 */
export interface AuditLogsTable {
  id: string;
  tenant_id: string;
  seq: number;
  actor_id: string | null;
  actor_type: string | null;
  entity_type: string;
  entity_id: string;
  operation: string;
  message: string;
  created_at: string;
  /**
   * The ids one request touched when a single entry stands for several (a list or a search: the
   * tokens it returned), as a JSON array; null for an entry about `entity_id` alone.
   */
  entity_ids: string | null;
  /** For a read: 1 when the caller saw data unmasked, 0 when masked; null for other entries. */
  revealed: number | null;
  prev_hash: Uint8Array;
  hash: Uint8Array;
}

/**
 * Embedded only: one audit segment file (core/audit/segments/). `generation` names the file version
 * (a retention rewrite writes the next one); `committed_bytes` is how much of it committed spills
 * vouch for; `rolled` 1 once the segment is full and has its index file (it is never appended again).
 */
export interface AuditSegmentsTable {
  segment: number;
  generation: number;
  committed_bytes: number;
  rolled: number;
}

/** Embedded only: the epoch of a tenant's current chain, raised each time the chain is dropped. */
export interface AuditEpochsTable {
  tenant_id: string;
  epoch: number;
}

/** A run of pruned read entries, vouched for so the chain verifies across the gap. */
export interface AuditCheckpointsTable {
  tenant_id: string;
  first_seq: number;
  last_seq: number;
  entries: number;
  first_at: string;
  last_at: string;
  /** The chain hash before the first pruned entry. */
  prev_hash: Uint8Array;
  /** The chain hash of the last pruned entry: the next kept entry links to it. */
  end_hash: Uint8Array;
  mac: Uint8Array;
  created_at: string;
}

/** The newest link of each tenant's chain, so that removing the last entries is detected too. */
export interface AuditHeadsTable {
  tenant_id: string;
  seq: number;
  hash: Uint8Array;
}

/**
 * Tokens. `row_id` is the rowid (time-ordered primary key); `id` is the
 * token id, unique per tenant. `data` holds only a field envelope (`v1.<term>.<nonce>.<ct>`,
 * core/crypto/field-envelope.ts) of the JSON of the data; nothing else here is secret.
 */
export interface TokensTable {
  row_id: Generated<number>;
  tenant_id: string;
  id: string;
  type: string;
  /** Field envelope of JSON(data), sealed with the tenant's data key; AAD tenant ‖ token id ‖ term. */
  data: string;
  /** JSON of the mask template; null = no mask. */
  mask: string | null;
  /** base58 keyed BLAKE2b (tenant fingerprint key) of type ‖ evaluated expression; null = none. */
  fingerprint: string | null;
  /** The effective expression (the request's or the type's default). */
  fingerprint_expression: string;
  container: string;
  /** JSON object string → string. */
  metadata: string;
  /** JSON array of search index expressions (the values are only in token_search_indexes, hashed). */
  search_indexes: string;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** UTC ISO 8601 (`toISOString()`), compared as text; null = never expires. */
  expires_at: string | null;
  /** Offset in minutes the caller gave with `expires_at` (for the response); null = UTC (`Z`). */
  expires_offset: number | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

/** Blind search indexes: keyed BLAKE2b (tenant search key) of each lower-cased evaluated index. */
export interface TokenSearchIndexesTable {
  tenant_id: string;
  token_rowid: number;
  digest: Uint8Array;
}

/** One row per token and calendar month (UTC) in which it was created, read or used (MATs). */
export interface TokenActivityTable {
  tenant_id: string;
  /** `YYYY-MM`. */
  month: string;
  token_id: string;
}

/** Parent/child links between tokens of one tenant (token row ids; cascade with either token). */
export interface TokenAssociationsTable {
  tenant_id: string;
  parent_rowid: number;
  child_rowid: number;
  created_by: string | null;
  created_at: string;
}

/** Tenant invitations: one outstanding invitation per (tenant, e-mail); the link secret only as a keyed hash. */
export interface InvitationsTable {
  id: string;
  tenant_id: string;
  /** Trimmed and lower-cased. */
  email: string;
  /** keyedHash('invitation', secret); replaced on resend, so earlier links stop matching. */
  secret_hash: Uint8Array;
  /** UTC ISO 8601 (`toISOString()`); at or before now = EXPIRED. */
  expires_at: string;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

/** Private reactor formulas (official ones ship with the code). JSON columns hold the contracts. */
export interface ReactorFormulasTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  status: string;
  icon: string | null;
  code: string;
  /** JSON array of configuration settings. */
  configuration: string;
  /** JSON array of request parameters. */
  request_parameters: string;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

/** Reactors: a formula (private row or official id) with its configuration and application. */
export interface ReactorsTable {
  id: string;
  tenant_id: string;
  name: string;
  formula_id: string;
  /** JSON object. */
  configuration: string;
  application_id: string | null;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

export interface Database {
  schema_migrations: SchemaMigrationsTable;
  vault_meta: VaultMetaTable;
  tenants: TenantsTable;
  applications: ApplicationsTable;
  tenant_keys: TenantKeysTable;
  users: UsersTable;
  members: MembersTable;
  sessions: SessionsTable;
  audit_logs: AuditLogsTable;
  audit_heads: AuditHeadsTable;
  audit_checkpoints: AuditCheckpointsTable;
  audit_segments: AuditSegmentsTable;
  audit_epochs: AuditEpochsTable;
  tokens: TokensTable;
  token_search_indexes: TokenSearchIndexesTable;
  token_activity: TokenActivityTable;
  invitations: InvitationsTable;
  token_associations: TokenAssociationsTable;
  reactor_formulas: ReactorFormulasTable;
  reactors: ReactorsTable;
  proxies: ProxiesTable;
}

/** Pre-configured proxies (core/proxies). */
export interface ProxiesTable {
  id: string;
  tenant_id: string;
  /** Vault-generated routing key (`SVC-PROXY-KEY`); never changes. */
  key: string;
  name: string;
  destination_url: string;
  /** Transform code, or null for none. */
  request_transform: string | null;
  response_transform: string | null;
  /** Application whose grants detokenization and transforms act with; null = none. */
  application_id: string | null;
  /** JSON object string → string. */
  configuration: string;
  /** 1 = SVC-API-KEY required, 0 = anyone with the key may invoke. */
  require_auth: number;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** MAC over the columns that decide access (core/integrity/row-authenticator.ts): `v1.<term>.<mac>`. */
  row_mac: string;
}

// Kept exported so later modules can describe generated columns the same way.
export type { ColumnType, Generated };

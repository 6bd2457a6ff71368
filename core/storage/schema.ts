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
  name: string;
  /** JSON object of string → string. */
  settings: string;
  created_at: string;
  created_by: string | null;
  modified_at: string | null;
  modified_by: string | null;
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
}

/** Per-tenant keys (data, fingerprint, search), wrapped by the keyring term named in `term`. */
export interface TenantKeysTable {
  tenant_id: string;
  purpose: string;
  term: number;
  wrapped: Uint8Array;
  created_at: string;
}

export interface Database {
  schema_migrations: SchemaMigrationsTable;
  vault_meta: VaultMetaTable;
  tenants: TenantsTable;
  applications: ApplicationsTable;
  tenant_keys: TenantKeysTable;
}

// Kept exported so later modules can describe generated columns the same way.
export type { ColumnType, Generated };

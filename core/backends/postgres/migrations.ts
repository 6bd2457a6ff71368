import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import { AUTHENTICATED_TABLES } from '../../integrity/row-authenticator.ts';
import type { RowKeys } from '../../integrity/row-authenticator.ts';
import { authenticateStoredRows } from '../../integrity/stored-row-macs.ts';
import { VaultError } from '../../errors/catalogue.ts';
import type { Database } from '../../storage/schema.ts';

/**
 * The PostgreSQL schema: its own ordered list, with the same version numbers and the same tables
 * as the embedded list (core/backends/embedded/migrations.ts), so a vault moves between the two by version.
 * Types, decided once for every table:
 * - text columns are `text collate "C"`: byte order, like SQLite's BINARY collation, so sorting,
 *   range scans and comparisons answer the same on both backends;
 * - timestamps stay ISO 8601 UTC text (not timestamptz): the services compare and sort them as
 *   text, and the audit chain hashes them as text, so the stored form must be exactly that text;
 * - blobs are `bytea`; integers are `bigint` (read back as JS numbers, see pool.ts);
 * - `tokens.row_id` is an identity column (SQLite's rowid), and `members` and `invitations` get a
 *   `rowid` identity column so "insertion order" is the same expression on both backends.
 * Never edit a released migration: add a new one.
 */
/** What a migration that works on existing rows gets from the vault that runs it. */
export interface PostgresMigrationContext {
  readonly keys: RowKeys;
  /**
   * Whether the keyring stored in the database (which only the root key can write) records that
   * the rows carry MACs; false while a new vault is set up (no keyring is stored yet).
   */
  readonly rowMacsRecorded: boolean;
  /** Records it in the stored keyring (re-wrapped with the root key), in `trx`. */
  recordRowMacs(trx: Kysely<Database>): Promise<void>;
}

export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly RawBuilder<unknown>[];
  /** Run after the statements, with the open vault's keys: work on existing rows that needs them. */
  readonly then?: (trx: Kysely<Database>, context: PostgresMigrationContext) => Promise<void>;
}

const migration = (version: number, name: string, ddl: string): PostgresMigration => ({
  version,
  name,
  statements: ddl
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => sql.raw(s)),
});

const T = 'text collate "C"';

export const postgresMigrations: readonly PostgresMigration[] = [
  migration(
    1,
    'foundation',
    `
    create table vault_meta (key ${T} primary key, value ${T} not null);
    create table tenants (
      id ${T} primary key, name ${T} not null, settings ${T} not null default '{}',
      created_at ${T} not null, created_by ${T}, modified_at ${T}, modified_by ${T});
    create table applications (
      id ${T} primary key, tenant_id ${T} not null references tenants(id) on delete cascade,
      name ${T} not null, type ${T} not null, key_hash bytea not null unique, permissions ${T} not null,
      rules ${T}, created_at ${T} not null, created_by ${T}, modified_at ${T}, modified_by ${T});
    create index applications_tenant on applications (tenant_id);
    create table tenant_keys (
      tenant_id ${T} not null references tenants(id) on delete cascade, purpose ${T} not null,
      term bigint not null, wrapped bytea not null, created_at ${T} not null,
      constraint tenant_keys_pk primary key (tenant_id, purpose, term));
    `,
  ),
  migration(
    2,
    'identity-and-audit',
    `
    alter table tenants add column owner_id ${T};
    create table users (
      id ${T} primary key, email ${T} not null unique, first_name ${T}, last_name ${T},
      password_hash ${T}, created_at ${T} not null, modified_at ${T});
    create table members (
      id ${T} primary key, tenant_id ${T} not null references tenants(id) on delete cascade,
      user_id ${T} not null references users(id) on delete cascade, role ${T} not null,
      created_at ${T} not null, created_by ${T}, modified_at ${T}, modified_by ${T},
      rowid bigint generated always as identity,
      constraint members_tenant_user unique (tenant_id, user_id));
    create index members_user on members (user_id);
    create table sessions (
      id ${T} primary key, user_id ${T} not null references users(id) on delete cascade,
      token_hash bytea not null unique, created_at ${T} not null, expires_at ${T} not null);
    create table audit_logs (
      id ${T} primary key, tenant_id ${T} not null, seq bigint not null, actor_id ${T}, actor_type ${T},
      entity_type ${T} not null, entity_id ${T} not null, operation ${T} not null, message ${T} not null,
      created_at ${T} not null, prev_hash bytea not null, hash bytea not null,
      constraint audit_logs_tenant_seq unique (tenant_id, seq));
    create index audit_logs_tenant_created on audit_logs (tenant_id, created_at);
    create table audit_heads (tenant_id ${T} primary key, seq bigint not null, hash bytea not null);
    `,
  ),
  migration(
    3,
    'tokens',
    `
    create table tokens (
      row_id bigint generated by default as identity primary key,
      tenant_id ${T} not null references tenants(id) on delete cascade, id ${T} not null,
      type ${T} not null, data ${T} not null, mask ${T}, fingerprint ${T},
      fingerprint_expression ${T} not null, container ${T} not null, metadata ${T} not null default '{}',
      search_indexes ${T} not null default '[]', created_by ${T}, created_at ${T} not null,
      modified_by ${T}, modified_at ${T}, expires_at ${T}, expires_offset bigint,
      constraint tokens_tenant_id unique (tenant_id, id));
    create index tokens_dedup on tokens (tenant_id, fingerprint, type);
    create index tokens_container on tokens (tenant_id, container);
    create index tokens_expires on tokens (expires_at);
    create table token_search_indexes (
      tenant_id ${T} not null, token_rowid bigint not null references tokens(row_id) on delete cascade,
      digest bytea not null, constraint token_search_indexes_pk primary key (token_rowid, digest));
    create index token_search_indexes_digest on token_search_indexes (tenant_id, digest);
    create table token_activity (
      tenant_id ${T} not null references tenants(id) on delete cascade, month ${T} not null,
      token_id ${T} not null, constraint token_activity_pk primary key (tenant_id, month, token_id));
    `,
  ),
  migration(
    4,
    'invitations',
    `
    create table invitations (
      id ${T} primary key, tenant_id ${T} not null references tenants(id) on delete cascade,
      email ${T} not null, secret_hash bytea not null unique, expires_at ${T} not null,
      created_by ${T}, created_at ${T} not null, modified_by ${T}, modified_at ${T},
      rowid bigint generated always as identity,
      constraint invitations_tenant_email unique (tenant_id, email));
    `,
  ),
  migration(
    5,
    'reactors',
    `
    create table reactor_formulas (
      id ${T} primary key, tenant_id ${T} not null references tenants(id) on delete cascade,
      name ${T} not null, description ${T}, status ${T} not null, icon ${T}, code ${T} not null,
      configuration ${T} not null, request_parameters ${T} not null, created_by ${T},
      created_at ${T} not null, modified_by ${T}, modified_at ${T});
    create table reactors (
      id ${T} primary key, tenant_id ${T} not null references tenants(id) on delete cascade,
      name ${T} not null, formula_id ${T} not null, configuration ${T} not null, application_id ${T},
      created_by ${T}, created_at ${T} not null, modified_by ${T}, modified_at ${T});
    create index reactors_formula on reactors (tenant_id, formula_id);
    `,
  ),
  migration(
    6,
    'audit checkpoints',
    `
    create table audit_checkpoints (
      tenant_id ${T} not null, first_seq bigint not null, last_seq bigint not null,
      entries bigint not null, first_at ${T} not null, last_at ${T} not null, prev_hash bytea not null,
      end_hash bytea not null, mac bytea not null, created_at ${T} not null,
      constraint audit_checkpoints_pk primary key (tenant_id, first_seq));
    `,
  ),
  migration(
    7,
    'proxies',
    `
    create table proxies (
      id ${T} primary key, tenant_id ${T} not null references tenants(id) on delete cascade,
      key ${T} not null unique, name ${T} not null, destination_url ${T} not null,
      request_transform ${T}, response_transform ${T},
      application_id ${T} references applications(id) on delete set null,
      configuration ${T} not null default '{}', require_auth bigint not null default 1,
      created_by ${T}, created_at ${T} not null, modified_by ${T}, modified_at ${T});
    create index proxies_tenant on proxies (tenant_id);
    `,
  ),
  migration(
    8,
    'token_associations',
    `
    create table token_associations (
      tenant_id ${T} not null references tenants(id) on delete cascade,
      parent_rowid bigint not null references tokens(row_id) on delete cascade,
      child_rowid bigint not null references tokens(row_id) on delete cascade,
      created_by ${T}, created_at ${T} not null,
      constraint token_associations_pk primary key (parent_rowid, child_rowid));
    create index token_associations_child on token_associations (child_rowid);
    `,
  ),
  migration(
    9,
    'expiring applications',
    `
    alter table applications add column expires_at ${T};
    alter table applications add column can_create_expiring_applications bigint not null default 0;
    create index applications_expiry on applications (expires_at);
    `,
  ),
  // The embedded file rebuilt two tables so that their rows land in order; here they already do.
  migration(10, 'append-ordered audit and activity', ''),
  {
    // Every row that decides access carries a MAC (core/integrity/row-authenticator.ts): the
    // database's administrators can change rows without the vault key. Rows present now are
    // vouched for as they are (the vault is open with its key at this moment); then the column
    // becomes NOT NULL, so a row inserted without one is refused by the database as well, and the
    // keyring records it: an administrator who drops the column and this migration's record to
    // have tampered rows vouched for at the next open is refused instead.
    ...migration(
      11,
      'row MACs',
      AUTHENTICATED_TABLES.map((table) => `alter table ${table} add column row_mac ${T};`).join('\n'),
    ),
    async then(trx, context) {
      if (context.rowMacsRecorded) {
        throw new VaultError(
          'INTEGRITY_FAILED',
          "The keyring says this database's rows carry MACs, but the MAC column or its migration's " +
            'record was removed: nothing was vouched for. Restore the database from a backup.',
        );
      }
      await authenticateStoredRows(trx, context.keys);
      for (const table of AUTHENTICATED_TABLES) {
        await sql`alter table ${sql.table(table)} alter column row_mac set not null`.execute(trx);
      }
      await context.recordRowMacs(trx);
    },
  },
  migration(
    12,
    'audit entries for many ids',
    `
    alter table audit_logs add column entity_ids ${T};
    alter table audit_logs add column revealed bigint;
    `,
  ),
];

/**
 * Created before any migration, outside the list: the migration ledger, the wrapped keyring and the
 * SQL functions the services share with SQLite (json_extract of a `$."key"` path; instr). Run only
 * while one of them is missing (`baseInPlace`): each statement takes catalogue locks and a replaced
 * function makes every other connection of the database reload its caches, at every open of every
 * server. A change to one of them is therefore a migration, never an edit here.
 */
export const POSTGRES_BASE_DDL: readonly RawBuilder<unknown>[] = [
  sql`create table if not exists schema_migrations (
    version bigint primary key, name text collate "C" not null, applied_at text collate "C" not null)`,
  sql`create table if not exists vault_keyring (
    id integer primary key check (id = 1), vault_id text collate "C" not null, created_at text collate "C" not null,
    kdf text collate "C" not null, wrapped bytea not null, terms text collate "C" not null, updated_at text collate "C" not null)`,
  sql`create or replace function json_extract(doc text, path text) returns text
    language sql immutable strict parallel safe as
    $$ select (doc::jsonb) ->> (case when path like '$."%"' then substr(path, 4, length(path) - 4)
                                     else substr(path, 3) end) $$`,
  sql`create or replace function instr(haystack text, needle text) returns integer
    language sql immutable strict parallel safe as $$ select strpos(haystack, needle) $$`,
];

/** Whether every object of POSTGRES_BASE_DDL exists in the schema the connection uses. */
async function baseInPlace(trx: Kysely<Database>): Promise<boolean> {
  const found = await sql<{ present: boolean }>`select
    to_regclass('schema_migrations') is not null and to_regclass('vault_keyring') is not null
    and to_regprocedure('json_extract(text,text)') is not null
    and to_regprocedure('instr(text,text)') is not null as present`.execute(trx);
  return found.rows[0]?.present === true;
}

/** Runs the base DDL and every pending migration; the caller holds the migration advisory lock. */
export async function migratePostgres(
  trx: Kysely<Database>,
  now: string,
  context: PostgresMigrationContext,
): Promise<void> {
  if (!(await baseInPlace(trx))) {
    for (const stmt of POSTGRES_BASE_DDL) await stmt.execute(trx);
  }
  const applied = await trx.selectFrom('schema_migrations').select('version').execute();
  const done = new Set(applied.map((r) => Number(r.version)));
  for (const m of postgresMigrations) {
    if (done.has(m.version)) continue;
    for (const stmt of m.statements) await stmt.execute(trx);
    await m.then?.(trx, context);
    await trx
      .insertInto('schema_migrations')
      .values({ version: m.version, name: m.name, applied_at: now })
      .execute();
  }
}

import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { AUTHENTICATED_TABLES } from '../../integrity/row-authenticator.ts';
import type { RowKeys } from '../../integrity/row-authenticator.ts';
import { authenticateStoredRows } from '../../integrity/stored-row-macs.ts';
import type { Database } from '../../storage/schema.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** `keys`: the open vault's, for a migration that must compute MACs over existing rows. */
  up(db: Kysely<Database>, keys: RowKeys): Promise<void>;
}

/**
 * Versioned schema changes, applied in order on open, each in its own journaled transaction.
 * Never edit a released migration: add a new one.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'foundation',
    async up(db) {
      await db.schema
        .createTable('vault_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('modified_at', 'text')
        .addColumn('modified_by', 'text')
        .execute();
      await db.schema
        .createTable('applications')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'blob', (c) => c.notNull().unique())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('rules', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('modified_at', 'text')
        .addColumn('modified_by', 'text')
        .execute();
      await db.schema.createIndex('applications_tenant').on('applications').column('tenant_id').execute();
      await db.schema
        .createTable('tenant_keys')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('term', 'integer', (c) => c.notNull())
        .addColumn('wrapped', 'blob', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tenant_keys_pk', ['tenant_id', 'purpose', 'term'])
        .execute();
    },
  },
  {
    version: 2,
    name: 'identity-and-audit',
    async up(db) {
      await db.schema.alterTable('tenants').addColumn('owner_id', 'text').execute();
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('first_name', 'text')
        .addColumn('last_name', 'text')
        .addColumn('password_hash', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('modified_at', 'text')
        .execute();
      await db.schema
        .createTable('members')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('modified_at', 'text')
        .addColumn('modified_by', 'text')
        .addUniqueConstraint('members_tenant_user', ['tenant_id', 'user_id'])
        .execute();
      await db.schema.createIndex('members_user').on('members').column('user_id').execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'blob', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('audit_logs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('actor_type', 'text')
        .addColumn('entity_type', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'blob', (c) => c.notNull())
        .addColumn('hash', 'blob', (c) => c.notNull())
        .addUniqueConstraint('audit_logs_tenant_seq', ['tenant_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('audit_logs_tenant_created')
        .on('audit_logs')
        .columns(['tenant_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('audit_heads')
        .addColumn('tenant_id', 'text', (c) => c.primaryKey())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('hash', 'blob', (c) => c.notNull())
        .execute();
    },
  },
  {
    version: 3,
    name: 'tokens',
    async up(db) {
      // An INTEGER PRIMARY KEY is SQLite's rowid: inserts append in time order instead of landing at
      // random places in a UUID-keyed b-tree (several times the insert throughput). The token id is a
      // unique secondary key per tenant. SQLite assigns rowids as max + 1, so replay is deterministic.
      await db.schema
        .createTable('tokens')
        .addColumn('row_id', 'integer', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('mask', 'text')
        .addColumn('fingerprint', 'text')
        .addColumn('fingerprint_expression', 'text', (c) => c.notNull())
        .addColumn('container', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('search_indexes', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('modified_by', 'text')
        .addColumn('modified_at', 'text')
        .addColumn('expires_at', 'text')
        .addColumn('expires_offset', 'integer')
        .addUniqueConstraint('tokens_tenant_id', ['tenant_id', 'id'])
        .execute();
      await db.schema
        .createIndex('tokens_dedup')
        .on('tokens')
        .columns(['tenant_id', 'fingerprint', 'type'])
        .execute();
      await db.schema
        .createIndex('tokens_container')
        .on('tokens')
        .columns(['tenant_id', 'container'])
        .execute();
      await db.schema.createIndex('tokens_expires').on('tokens').column('expires_at').execute();
      await db.schema
        .createTable('token_search_indexes')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('token_rowid', 'integer', (c) =>
          c.notNull().references('tokens.row_id').onDelete('cascade'),
        )
        .addColumn('digest', 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_search_indexes_pk', ['token_rowid', 'digest'])
        .execute();
      await db.schema
        .createIndex('token_search_indexes_digest')
        .on('token_search_indexes')
        .columns(['tenant_id', 'digest'])
        .execute();
      await db.schema
        .createTable('token_activity')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('token_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_activity_pk', ['tenant_id', 'month', 'token_id'])
        .execute();
    },
  },
  {
    version: 4,
    name: 'invitations',
    async up(db) {
      // Tenant invitations. Only a keyed hash of the link secret is
      // stored; resend replaces it, accept and delete remove the row. Status is derived from
      // expires_at at read time.
      await db.schema
        .createTable('invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'blob', (c) => c.notNull().unique())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('modified_by', 'text')
        .addColumn('modified_at', 'text')
        .addUniqueConstraint('invitations_tenant_email', ['tenant_id', 'email'])
        .execute();
    },
  },
  {
    version: 5,
    name: 'reactors',
    async up(db) {
      // Private reactor formulas and reactors. Official formulas ship with the code and have no
      // rows, so `reactors.formula_id` has no foreign key; the service keeps it consistent.
      // Contracts and configuration are JSON text.
      await db.schema
        .createTable('reactor_formulas')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('icon', 'text')
        .addColumn('code', 'text', (c) => c.notNull())
        .addColumn('configuration', 'text', (c) => c.notNull())
        .addColumn('request_parameters', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('modified_by', 'text')
        .addColumn('modified_at', 'text')
        .execute();
      await db.schema
        .createTable('reactors')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('formula_id', 'text', (c) => c.notNull())
        .addColumn('configuration', 'text', (c) => c.notNull())
        .addColumn('application_id', 'text')
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('modified_by', 'text')
        .addColumn('modified_at', 'text')
        .execute();
      await db.schema
        .createIndex('reactors_formula')
        .on('reactors')
        .columns(['tenant_id', 'formula_id'])
        .execute();
    },
  },
  {
    version: 6,
    name: 'audit checkpoints',
    async up(db) {
      // A checkpoint stands for a run of pruned read entries (first_seq..last_seq) of a tenant's
      // chain: the hash before the run and the chain hash at its end, under a MAC, so the chain
      // still verifies across the gap (core/audit/retention.ts).
      await db.schema
        .createTable('audit_checkpoints')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('first_seq', 'integer', (c) => c.notNull())
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addColumn('entries', 'integer', (c) => c.notNull())
        .addColumn('first_at', 'text', (c) => c.notNull())
        .addColumn('last_at', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'blob', (c) => c.notNull())
        .addColumn('end_hash', 'blob', (c) => c.notNull())
        .addColumn('mac', 'blob', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('audit_checkpoints_pk', ['tenant_id', 'first_seq'])
        .execute();
    },
  },
  {
    version: 7,
    name: 'proxies',
    async up(db) {
      // Pre-configured proxies. `key` is the vault-generated routing key (unique across tenants:
      // invocation finds the proxy by key alone). Transforms are stored as their code text.
      await db.schema
        .createTable('proxies')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('destination_url', 'text', (c) => c.notNull())
        .addColumn('request_transform', 'text')
        .addColumn('response_transform', 'text')
        .addColumn('application_id', 'text', (c) => c.references('applications.id').onDelete('set null'))
        .addColumn('configuration', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('require_auth', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('modified_by', 'text')
        .addColumn('modified_at', 'text')
        .execute();
      await db.schema.createIndex('proxies_tenant').on('proxies').column('tenant_id').execute();
    },
  },
  {
    version: 8,
    name: 'token_associations',
    async up(db) {
      // Parent/child links between two tokens of one tenant, by row id: a deleted token takes its
      // links with it (cascade), and a later token that reuses an id does not inherit them.
      await db.schema
        .createTable('token_associations')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('parent_rowid', 'integer', (c) =>
          c.notNull().references('tokens.row_id').onDelete('cascade'),
        )
        .addColumn('child_rowid', 'integer', (c) =>
          c.notNull().references('tokens.row_id').onDelete('cascade'),
        )
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_associations_pk', ['parent_rowid', 'child_rowid'])
        .execute();
      await db.schema
        .createIndex('token_associations_child')
        .on('token_associations')
        .column('child_rowid')
        .execute();
    },
  },
  {
    version: 9,
    name: 'expiring applications',
    async up(db) {
      // expires_at: set on expiring applications only (ISO UTC, compared as text); the flag lets a
      // private application create expiring ones (0 or 1).
      await db.schema.alterTable('applications').addColumn('expires_at', 'text').execute();
      await db.schema
        .alterTable('applications')
        .addColumn('can_create_expiring_applications', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('applications_expiry').on('applications').column('expires_at').execute();
    },
  },
  {
    version: 10,
    name: 'append-ordered audit and activity',
    async up(db) {
      // Every token written adds one audit row and one activity row. Keyed by a random UUID, each
      // audit row also landed at a random place in the id's own index, which no query reads (entries
      // are found by (tenant_id, seq) and (tenant_id, created_at)); the id stays a column. The
      // activity rows were a rowid table plus an index holding the same three columns: as a
      // WITHOUT ROWID table they are one b-tree, not two. SQLite cannot drop a primary key, so both
      // tables are rebuilt, rows copied in their stored order (replay yields the same file).
      await sql`create table audit_logs_next (
        id text not null,
        tenant_id text not null,
        seq integer not null,
        actor_id text,
        actor_type text,
        entity_type text not null,
        entity_id text not null,
        operation text not null,
        message text not null,
        created_at text not null,
        prev_hash blob not null,
        hash blob not null,
        constraint audit_logs_tenant_seq unique (tenant_id, seq)
      )`.execute(db);
      await sql`insert into audit_logs_next (id, tenant_id, seq, actor_id, actor_type, entity_type,
          entity_id, operation, message, created_at, prev_hash, hash)
        select id, tenant_id, seq, actor_id, actor_type, entity_type, entity_id, operation, message,
          created_at, prev_hash, hash
        from audit_logs order by rowid`.execute(db);
      await sql`drop table audit_logs`.execute(db);
      await sql`alter table audit_logs_next rename to audit_logs`.execute(db);
      await db.schema
        .createIndex('audit_logs_tenant_created')
        .on('audit_logs')
        .columns(['tenant_id', 'created_at'])
        .execute();
      await sql`create table token_activity_next (
        tenant_id text not null references tenants (id) on delete cascade,
        month text not null,
        token_id text not null,
        constraint token_activity_pk primary key (tenant_id, month, token_id)
      ) without rowid`.execute(db);
      await sql`insert into token_activity_next (tenant_id, month, token_id)
        select tenant_id, month, token_id from token_activity order by tenant_id, month, token_id`.execute(
        db,
      );
      await sql`drop table token_activity`.execute(db);
      await sql`alter table token_activity_next rename to token_activity`.execute(db);
    },
  },
  {
    version: 11,
    name: 'row MACs',
    async up(db, keys) {
      // Every row that decides access carries a MAC (core/integrity/row-authenticator.ts). Rows
      // present now are vouched for as they are: the vault is open with its key at this moment.
      // SQLite adds a NOT NULL column only with a default; '' is no MAC and fails every check.
      for (const table of AUTHENTICATED_TABLES) {
        await sql`alter table ${sql.table(table)} add column row_mac text not null default ''`.execute(db);
      }
      await authenticateStoredRows(db, keys);
    },
  },
  {
    version: 12,
    name: 'audit entries for many ids',
    async up(db) {
      await db.schema.alterTable('audit_logs').addColumn('entity_ids', 'text').execute();
      await db.schema.alterTable('audit_logs').addColumn('revealed', 'integer').execute();
    },
  },
  {
    version: 13,
    name: 'audit segments',
    async up(db) {
      // The embedded audit log moves its oldest entries out of memory into segment files beside the
      // vault (core/audit/segments/): the file's own bookkeeping, which PostgreSQL has no use for.
      // committed_bytes is how much of a segment file a committed spill vouches for: bytes past it
      // are a spill that never committed and are cut at open.
      await sql`create table audit_segments (
        segment integer primary key,
        generation integer not null,
        committed_bytes integer not null,
        rolled integer not null
      )`.execute(db);
      // A tenant's entries spilled before its chain was dropped (tenant deletion) carry an older
      // epoch than the tenant's current one here, and are no longer part of its log.
      await sql`create table audit_epochs (
        tenant_id text primary key,
        epoch integer not null
      )`.execute(db);
    },
  },
];

export const SCHEMA_MIGRATIONS_DDL = sql`create table if not exists schema_migrations (
  version integer primary key,
  name text not null,
  applied_at text not null
)`;

/** What running the embedded migrations needs of the open vault. */
export interface MigratingVault extends RowKeys {
  readonly db: Kysely<Database>;
  readonly clock: { now(): Date };
  transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
}

/** Runs the embedded file's pending migrations, each in its own journaled transaction. */
export async function migrateEmbedded(vault: MigratingVault): Promise<void> {
  const hasTable = await vault.db
    .selectFrom(sql<{ name: string }>`sqlite_master`.as('m'))
    .select('m.name')
    .where('m.name', '=', 'schema_migrations')
    .executeTakeFirst();
  if (!hasTable) {
    await vault.transaction(async (trx) => {
      await SCHEMA_MIGRATIONS_DDL.execute(trx);
    });
  }
  const applied = await vault.db.selectFrom('schema_migrations').select('version').execute();
  const done = new Set(applied.map((r) => r.version));
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await vault.transaction(async (trx) => {
      await migration.up(trx, vault);
      await trx
        .insertInto('schema_migrations')
        .values({
          version: migration.version,
          name: migration.name,
          applied_at: vault.clock.now().toISOString(),
        })
        .execute();
    });
  }
}

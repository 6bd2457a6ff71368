import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  up(db: Kysely<Database>): Promise<void>;
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
];

export const SCHEMA_MIGRATIONS_DDL = sql`create table if not exists schema_migrations (
  version integer primary key,
  name text not null,
  applied_at text not null
)`;

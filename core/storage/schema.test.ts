/**
 * The database schema is written three times: the embedded migrations (migrations.ts), the
 * PostgreSQL migrations (postgres/migrations.ts) and the row types the code is checked against
 * (schema.ts). This file migrates a new vault on each backend, compares what the two databases hold
 * (core/test-support/schema-shape.ts: tables, columns with their mapped types, nullability and
 * defaults, keys, unique constraints, indexes, foreign keys), and checks that schema.ts names exactly
 * the migrated tables and columns. A difference that is meant is listed once below with why; any
 * other fails, and so does a listed one that is no longer there.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempSchema, postgresOrSkipNotice } from '../test-support/postgres.ts';
import type { TempSchema } from '../test-support/postgres.ts';
import { postgresShape, shapeDifferences, sqliteShape } from '../test-support/schema-shape.ts';
import type { SchemaShape, ShapeDifference } from '../test-support/schema-shape.ts';
import { createTempVault } from '../test-support/temp-vault.ts';
import { createPostgresVault } from '../backends/postgres/postgres-vault.ts';

/** A difference between the backends' schemas that is meant: where (see ShapeDifference) and why. */
interface IntendedDifference {
  readonly at: string | RegExp;
  readonly why: string;
}

const INTENDED_DIFFERENCES: readonly IntendedDifference[] = [
  {
    at: 'vault_keyring',
    why: "a vault file keeps its wrapped keyring in the file's header; a database has no header, so it is a row",
  },
  {
    at: /^(members|invitations)\.rowid$/,
    why: "stands in for SQLite's implicit rowid, so listing in insertion order is the same SQL on both backends",
  },
  {
    at: 'schema_migrations.version generated',
    why: "any INTEGER PRIMARY KEY is SQLite's rowid, numbered when none is given; the ledger always names its version",
  },
  {
    at: 'audit_logs primary key',
    why: "the file's table was rebuilt without one (migration 10): no query finds an entry by id, and a random key put every new row at a random place; PostgreSQL's rows land in order either way",
  },
  {
    at: /^\w+\.row_mac default$/,
    why: "SQLite adds a NOT NULL column only with a default ('' is no MAC and fails every check); PostgreSQL adds it, fills it and then sets NOT NULL, so a row written without a MAC is refused",
  },
  {
    at: /^audit_(segments|epochs)/,
    why: 'the embedded audit log lives in segment files beside the vault (docs/audit-log.md) and its sql.js tables hold their bookkeeping; PostgreSQL keeps the log in tables',
  },
];

/** Tables and columns the migrations make that schema.ts leaves out on purpose, with why. */
const NOT_IN_SCHEMA_TYPES: Readonly<Record<string, string>> = {
  vault_keyring:
    'read and written by core/backends/postgres/postgres-vault.ts alone, which types it where it uses it',
  'members.rowid': 'the rowid stand-in (see above): ordered by in SQL text, never read as a field',
  'invitations.rowid': 'the rowid stand-in (see above): ordered by in SQL text, never read as a field',
};

const matches = (intended: IntendedDifference, difference: ShapeDifference): boolean =>
  typeof intended.at === 'string' ? intended.at === difference.at : intended.at.test(difference.at);

/** The tables of `Database` in core/storage/schema.ts and the columns each names, read by the compiler. */
function typedColumns(): Map<string, string[]> {
  const file = fileURLToPath(new URL('./schema.ts', import.meta.url));
  // Only the names are read: nothing is resolved (not even the standard library), so this stays fast.
  const program = ts.createProgram([file], { noLib: true, noResolve: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  const database =
    module === undefined ? undefined : checker.getExportsOfModule(module).find((s) => s.name === 'Database');
  if (source === undefined || database === undefined) throw new Error('schema.ts exports no `Database`');
  const tables = new Map<string, string[]>();
  for (const table of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(database))) {
    const row = checker.getTypeOfSymbolAtLocation(table, source);
    tables.set(
      table.name,
      checker
        .getPropertiesOfType(row)
        .map((column) => column.name)
        .sort(),
    );
  }
  return tables;
}

/** The migrated tables with their columns, without what schema.ts leaves out on purpose. */
function migratedColumns(shape: SchemaShape): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [table, { columns }] of shape) {
    if (table in NOT_IN_SCHEMA_TYPES) continue;
    out[table] = [...columns.keys()].filter((c) => !(`${table}.${c}` in NOT_IN_SCHEMA_TYPES)).sort();
  }
  return out;
}

/** What schema.ts says of the tables `shape` holds (a table it lacks shows as `undefined`). */
function typedFor(shape: Record<string, string[]>, typed: Map<string, string[]>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(shape).map((table) => [table, typed.get(table)]));
}

/** A new vault on the embedded file, migrated by its creation, and its shape. */
async function embeddedVaultShape(): Promise<SchemaShape> {
  const temp = await createTempVault();
  try {
    return await sqliteShape(temp.vault.db);
  } finally {
    await temp.dispose();
  }
}

/** A new vault in a fresh schema of the test database; the schema is left for `read` and `drop`. */
async function postgresVaultSchema(): Promise<TempSchema & { read(): Promise<SchemaShape> }> {
  const schema = await makeTempSchema();
  try {
    const vault = await createPostgresVault({
      url: schema.url,
      key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
    });
    await vault.close();
  } catch (error) {
    await schema.drop();
    throw error;
  }
  return {
    ...schema,
    async read() {
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        return await postgresShape(client);
      } finally {
        await client.end();
      }
    },
  };
}

const postgres = await postgresOrSkipNotice('core/storage/schema.test.ts (its PostgreSQL tests)');

describe('core/storage/schema.ts', () => {
  it('names exactly the tables and columns the embedded migrations make', async () => {
    const migrated = migratedColumns(await embeddedVaultShape());
    expect(typedFor(migrated, typedColumns())).toEqual(migrated);
  });
});

describe.skipIf(!postgres)('the schema on both backends', () => {
  let embedded: SchemaShape;
  let onPostgres: SchemaShape;
  beforeAll(async () => {
    embedded = await embeddedVaultShape();
    const schema = await postgresVaultSchema();
    try {
      onPostgres = await schema.read();
    } finally {
      await schema.drop();
    }
  });

  it('differs only where a difference is listed as meant, and every listed one is still there', () => {
    const differences = shapeDifferences(embedded, onPostgres);
    expect(differences.filter((d) => !INTENDED_DIFFERENCES.some((i) => matches(i, d)))).toEqual([]);
    const stale = INTENDED_DIFFERENCES.filter((i) => !differences.some((d) => matches(i, d)));
    expect(stale.map((i) => String(i.at))).toEqual([]);
  });

  it('schema.ts names exactly the tables and columns the PostgreSQL migrations make', () => {
    const migrated = migratedColumns(onPostgres);
    expect(typedFor(migrated, typedColumns())).toEqual(migrated);
  });

  it('schema.ts names no table that neither backend has', () => {
    const typed = [...typedColumns().keys()];
    expect(typed.filter((table) => !embedded.has(table) && !onPostgres.has(table))).toEqual([]);
  });
});

describe.skipIf(!postgres)('the comparison itself', () => {
  let schema: (TempSchema & { read(): Promise<SchemaShape> }) | undefined;
  afterAll(async () => {
    await schema?.drop();
  });

  it('reports a changed type, nullability and default, a missing index, an extra column and a changed foreign key', async () => {
    const embedded = await embeddedVaultShape();
    schema = await postgresVaultSchema();
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      await client.query(`alter table proxies alter column require_auth type integer;
        alter table tenants alter column name drop not null;
        alter table tokens alter column metadata drop default;
        drop index tokens_expires;
        alter table users add column nickname text collate "C";
        alter table reactors drop constraint reactors_tenant_id_fkey;
        alter table reactors add foreign key (tenant_id) references tenants (id)`);
    } finally {
      await client.end();
    }
    const unexplained = shapeDifferences(embedded, await schema.read()).filter(
      (d) => !INTENDED_DIFFERENCES.some((i) => matches(i, d)),
    );
    expect(unexplained).toEqual([
      { at: 'proxies.require_auth type', embedded: 'bigint', postgres: 'integer' },
      {
        at: 'reactors foreign key (tenant_id)',
        embedded: 'tenants(id) on delete cascade',
        postgres: 'tenants(id) on delete no action',
      },
      { at: 'tenants.name nullable', embedded: 'false', postgres: 'true' },
      { at: 'tokens.metadata default', embedded: "'{}'", postgres: 'null' },
      { at: 'tokens index tokens_expires', embedded: 'expires_at', postgres: 'absent' },
      { at: 'users.nickname', embedded: 'absent', postgres: 'column' },
    ]);
  });
});

/**
 * The storage engine's own insert ceiling (bench/insert-ceiling.ts prints it by table; the http
 * suite measures it beside the 1,000-value tokenize): a bare sql.js database with the vault's
 * schema (every migration, the vault's pragmas), no vault, no journal, no crypto. Each round inserts
 * rows in one transaction with one prepared 50-row statement per table, as a tokenize does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import type { Database as SqlJsDatabase } from 'sql.js';
import { migrations, SCHEMA_MIGRATIONS_DDL } from '../../core/backends/embedded/migrations.ts';
import { applyPragmas } from '../../core/backends/embedded/pragmas.ts';
import type { Database } from '../../core/storage/schema.ts';
import { SqlJsConnection, SqlJsDialect } from '../../core/backends/embedded/sqljs-dialect.ts';
import { loadSqlJs } from '../../core/backends/embedded/sqljs.ts';
import type { RowKeys } from '../../core/integrity/row-authenticator.ts';

const CHUNK = 50;
/** The one tenant of every database this module makes. */
export const CEILING_TENANT = randomUUID();
const ENVELOPE = 'v1.1.' + randomBytes(120).toString('base64');

async function schema(sqlite: SqlJsDatabase): Promise<void> {
  const connection = new SqlJsConnection(sqlite, () => undefined);
  const db = new Kysely<Database>({
    dialect: new SqlJsDialect(
      () => Promise.resolve(connection),
      () => Promise.resolve(),
    ),
  });
  await SCHEMA_MIGRATIONS_DDL.execute(db);
  // An empty schema: no row to compute a MAC for.
  const noRows: RowKeys = {
    rowMac: () => {
      throw new Error('an empty schema has no rows to vouch for');
    },
    keyTerm: 1,
    keyTerms: [1],
  };
  for (const migration of migrations) await migration.up(db, noRows);
  await db.destroy();
}

export interface Table {
  readonly name: string;
  readonly columns: readonly string[];
  readonly row: (i: number) => (string | number | Uint8Array | null)[];
}

let seq = 0;
const now = () => new Date().toISOString();
/** The tables one token writes a row into, with a row of each. */
export const TABLES: readonly Table[] = [
  {
    name: 'tokens',
    columns: [
      'tenant_id',
      'id',
      'type',
      'data',
      'mask',
      'fingerprint',
      'fingerprint_expression',
      'container',
      'created_at',
    ],
    row: () => [
      CEILING_TENANT,
      randomUUID(),
      'card',
      ENVELOPE,
      '424242XXXXXX4242',
      randomBytes(22).toString('base64url'),
      '{{ data | json: "$.number" }}',
      '/pci',
      now(),
    ],
  },
  {
    name: 'audit_logs',
    columns: [
      'id',
      'tenant_id',
      'seq',
      'entity_type',
      'entity_id',
      'operation',
      'message',
      'created_at',
      'prev_hash',
      'hash',
    ],
    row: () => [
      randomUUID(),
      CEILING_TENANT,
      ++seq,
      'token',
      randomUUID(),
      'create',
      'Token created',
      now(),
      randomBytes(32),
      randomBytes(32),
    ],
  },
  {
    name: 'token_activity',
    columns: ['tenant_id', 'month', 'token_id'],
    row: () => [CEILING_TENANT, '2026-11', randomUUID()],
  },
];

/**
 * Inserts `rows` rows into each of `tables` in one transaction, one prepared 50-row statement per
 * table, as a tokenize does; rows per CPU-second.
 */
/** What `insertAll` needs of a database: sql.js's, or the engine floor's (floor-engines.ts). */
export interface InsertTarget {
  readonly prepare: (sql: string) => {
    readonly run: (params: (string | number | Uint8Array | null)[]) => unknown;
    readonly free: () => unknown;
  };
  readonly exec: (sql: string) => unknown;
}

export function insertAll(sqlite: InsertTarget, tables: readonly Table[], rows: number): number {
  const statements = tables.map((t) => {
    const one = `(${t.columns.map(() => '?').join(', ')})`;
    return sqlite.prepare(
      `insert into ${t.name} (${t.columns.join(', ')}) values ${Array(CHUNK).fill(one).join(', ')}`,
    );
  });
  const params = tables.map((t) => Array.from({ length: rows }, (_, i) => t.row(i)));
  const start = process.cpuUsage();
  sqlite.exec('BEGIN');
  for (let i = 0; i < rows; i += CHUNK) {
    statements.forEach((s, k) => {
      s.run((params[k] as (string | number | Uint8Array | null)[][]).slice(i, i + CHUNK).flat());
    });
  }
  sqlite.exec('COMMIT');
  const used = process.cpuUsage(start);
  for (const s of statements) s.free();
  return (rows * 1e6) / (used.user + used.system);
}

/** A new database with the vault's schema and pragmas, `extra` SQL run after the schema. */
export async function database(extra: string | undefined): Promise<SqlJsDatabase> {
  const SQL = await loadSqlJs();
  const sqlite = new SQL.Database();
  applyPragmas(sqlite);
  await schema(sqlite);
  if (extra) sqlite.exec(extra);
  sqlite.exec(`insert into tenants (id, name, created_at) values ('${CEILING_TENANT}', 't', '${now()}')`);
  return sqlite;
}

/**
 * The engine's own insert rate, for the targets that are ratios to it: `rounds` rounds of `rows`
 * tokens (one row in each of TABLES) into one database that grows, in tokens per CPU-second of this
 * thread; `value` is the median round.
 */
export async function insertCeiling(
  rows: number,
  rounds: number,
): Promise<{ value: number; rounds: number[] }> {
  const sqlite = await database(undefined);
  try {
    const figures: number[] = [];
    for (let r = 0; r < rounds; r++) figures.push(Math.round(insertAll(sqlite, TABLES, rows)));
    return { value: [...figures].sort((a, b) => a - b)[figures.length >> 1]!, rounds: figures };
  } finally {
    sqlite.close();
  }
}

/**
 * The storage engine's own insert ceiling, for judging the tokenize targets against it:
 * `node --import tsx bench/insert-ceiling.ts [rows per round] [rounds] [extra SQL]` (the extra SQL runs
 * after the schema, for trying a pragma or a schema change). A bare sql.js database with
 * the vault's schema (every migration, the vault's pragmas), no vault, no journal, no crypto: each
 * round inserts `rows` rows in one transaction with one prepared 50-row statement, as a tokenize
 * does, into `tokens` alone, then `audit_logs` alone, then `token_activity` alone, then all three
 * together (one token = one row in each). Prints rows per second of CPU for each, per round, as
 * the database grows. With `AB_SQL='<SQL>'` in the environment it compares instead: two databases,
 * the second changed by that SQL, alternating rounds of all three tables, CPU µs per token of each.
 * Not part of `npm run bench`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import type { Database as SqlJsDatabase } from 'sql.js';
import { migrations, SCHEMA_MIGRATIONS_DDL } from '../core/backends/embedded/migrations.ts';
import { applyPragmas } from '../core/backends/embedded/pragmas.ts';
import type { Database } from '../core/storage/schema.ts';
import { SqlJsConnection, SqlJsDialect } from '../core/backends/embedded/sqljs-dialect.ts';
import { loadSqlJs } from '../core/backends/embedded/sqljs.ts';
import type { RowKeys } from '../core/integrity/row-authenticator.ts';

const rowsPerRound = Number(process.argv[2] ?? '10000');
const rounds = Number(process.argv[3] ?? '5');
const extraSql = process.argv[4];
const CHUNK = 50;
const TENANT = randomUUID();
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

interface Table {
  readonly name: string;
  readonly columns: readonly string[];
  readonly row: (i: number) => (string | number | Uint8Array | null)[];
}

let seq = 0;
const now = () => new Date().toISOString();
const TABLES: readonly Table[] = [
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
      TENANT,
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
      TENANT,
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
    row: () => [TENANT, '2026-11', randomUUID()],
  },
];

function insertAll(sqlite: SqlJsDatabase, tables: readonly Table[], rows: number): number {
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

const SQL = await loadSqlJs();
async function database(extra: string | undefined): Promise<SqlJsDatabase> {
  const sqlite = new SQL.Database();
  applyPragmas(sqlite);
  await schema(sqlite);
  if (extra) sqlite.exec(extra);
  sqlite.exec(`insert into tenants (id, name, created_at) values ('${TENANT}', 't', '${now()}')`);
  return sqlite;
}

if (process.env.AB_SQL !== undefined) {
  // Two databases in one process, the second with AB_SQL run after its schema, rounds alternating
  // which goes first: CPU per token (one row in each of the three tables) of each.
  const dbs = [await database(undefined), await database(process.env.AB_SQL)];
  const cpuUs = [0, 0];
  for (let r = 0; r < rounds; r++)
    for (const k of r % 2 ? [1, 0] : [0, 1])
      cpuUs[k]! += (rowsPerRound * 1e6) / insertAll(dbs[k]!, TABLES, rowsPerRound);
  const perRow = (us: number) => Number((us / (rounds * rowsPerRound)).toFixed(1));
  console.log(JSON.stringify({ a_us_per_token: perRow(cpuUs[0]!), b_us_per_token: perRow(cpuUs[1]!) }));
  process.exit(0);
}
for (const set of [...TABLES.map((t) => [t]), TABLES]) {
  const sqlite = await database(extraSql);
  const figures: number[] = [];
  for (let r = 0; r < rounds; r++) figures.push(Math.round(insertAll(sqlite, set, rowsPerRound)));
  const size = sqlite.exec('pragma page_count')[0]?.values[0]?.[0];
  console.log(
    JSON.stringify({
      tables: set.map((t) => t.name).join('+'),
      rows_per_round: rowsPerRound,
      rows_per_cpu_second: figures,
      pages_after: size,
    }),
  );
  sqlite.close();
}

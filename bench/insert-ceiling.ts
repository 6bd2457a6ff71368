/**
 * The storage engine's own insert ceiling by table (bench/support/insert-ceiling.ts):
 * `node --import tsx bench/insert-ceiling.ts [rows per round] [rounds] [extra SQL]` (the extra SQL runs
 * after the schema, for trying a pragma or a schema change). A bare sql.js database with
 * the vault's schema (every migration, the vault's pragmas), no vault, no journal, no crypto: each
 * round inserts `rows` rows in one transaction with one prepared 50-row statement, as a tokenize
 * does, into `tokens` alone, then `audit_logs` alone, then `token_activity` alone, then all three
 * together (one token = one row in each). Prints rows per second of CPU for each, per round, as
 * the database grows. With `AB_SQL='<SQL>'` in the environment it compares instead: two databases,
 * the second changed by that SQL, alternating rounds of all three tables, CPU µs per token of each.
 * The three tables together are also measured by the `http` suite, beside its 1,000-value tokenize.
 * With SVC_BENCH_FLOOR_ENGINE=node:sqlite the same rounds run on Node's own SQLite instead.
 */
import { floorDatabase, floorEngineFromEnv } from './support/floor-engines.ts';
import { database, insertAll, TABLES } from './support/insert-ceiling.ts';

const rowsPerRound = Number(process.argv[2] ?? '10000');
const rounds = Number(process.argv[3] ?? '5');
const extraSql = process.argv[4];

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
if (floorEngineFromEnv() === 'node:sqlite') {
  // The same rounds on Node's own SQLite (bench/support/floor-engines.ts), for comparing engines.
  for (const set of [...TABLES.map((t) => [t]), TABLES]) {
    const db = await floorDatabase('node:sqlite');
    if (extraSql) db.exec(extraSql);
    const figures: number[] = [];
    for (let r = 0; r < rounds; r++) figures.push(Math.round(insertAll(db, set, rowsPerRound)));
    console.log(
      JSON.stringify({
        engine: 'node:sqlite',
        tables: set.map((t) => t.name).join('+'),
        rows_per_round: rowsPerRound,
        rows_per_cpu_second: figures,
      }),
    );
    db.close();
  }
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

/**
 * The SQLite the engine floor (engine-floor.ts) runs on: sql.js, the vault's engine, by default; or
 * Node's own `node:sqlite` (SQLite compiled into the runtime: no add-on, no install script) with
 * SVC_BENCH_FLOOR_ENGINE=node:sqlite, to measure what the floors would be on it. Both get the vault's
 * schema, built by every migration on sql.js and copied statement by statement, and its pragmas.
 */
import { DatabaseSync } from 'node:sqlite';
import type { Database as SqlJsDatabase } from 'sql.js';
import { CEILING_TENANT, database } from './insert-ceiling.ts';

export type Cell = string | number | Uint8Array | null;

export type FloorEngineName = 'sql.js' | 'node:sqlite';

export interface FloorStatement {
  readonly run: (params: readonly Cell[]) => void;
  /** The first row's cells, or undefined when there is none. */
  readonly first: (params: readonly Cell[]) => Cell[] | undefined;
  readonly free: () => void;
}

export interface FloorDatabase {
  readonly engine: FloorEngineName;
  readonly exec: (sql: string) => void;
  readonly prepare: (sql: string) => FloorStatement;
  readonly close: () => void;
}

/** The engine named by SVC_BENCH_FLOOR_ENGINE; sql.js when it is unset. */
export function floorEngineFromEnv(): FloorEngineName {
  const named = process.env.SVC_BENCH_FLOOR_ENGINE ?? 'sql.js';
  if (named !== 'sql.js' && named !== 'node:sqlite')
    throw new Error(`SVC_BENCH_FLOOR_ENGINE must be sql.js or node:sqlite, not ${named}`);
  return named;
}

function onSqlJs(sqlite: SqlJsDatabase): FloorDatabase {
  return {
    engine: 'sql.js',
    exec: (sql) => void sqlite.exec(sql),
    prepare(sql) {
      const statement = sqlite.prepare(sql);
      return {
        run: (params) => void statement.run(params as Cell[]),
        first(params) {
          statement.bind(params as Cell[]);
          try {
            return statement.step() ? (statement.get() as Cell[]) : undefined;
          } finally {
            statement.reset();
          }
        },
        free: () => void statement.free(),
      };
    },
    close: () => sqlite.close(),
  };
}

/** The vault's schema and pragmas on `node:sqlite`, copied from a sql.js database that has them. */
async function onNodeSqlite(): Promise<FloorDatabase> {
  const source = await database(undefined);
  const pragma = (name: string) => source.exec(`pragma ${name}`)[0]?.values[0]?.[0];
  const ddl = (
    source.exec(
      "select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by case type when 'table' then 0 else 1 end, rowid",
    )[0]?.values ?? []
  ).map((row) => String(row[0]));
  const tenant = source.exec(`select id, name, created_at from tenants where id = '${CEILING_TENANT}'`)[0]!
    .values[0]!;
  const secureDelete = Number(pragma('secure_delete'));
  const foreignKeys = Number(pragma('foreign_keys'));
  source.close();
  const db = new DatabaseSync(':memory:');
  db.exec(`pragma secure_delete = ${secureDelete}; pragma foreign_keys = ${foreignKeys};`);
  for (const statement of ddl) db.exec(statement);
  db.prepare('insert into tenants (id, name, created_at) values (?, ?, ?)').run(...(tenant as string[]));
  return {
    engine: 'node:sqlite',
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const statement = db.prepare(sql);
      statement.setReturnArrays(true);
      return {
        run: (params) => void statement.run(...(params as Array<string | number | Uint8Array | null>)),
        first: (params) =>
          statement.get(...(params as Array<string | number | Uint8Array | null>)) as Cell[] | undefined,
        free: () => undefined,
      };
    },
    close: () => db.close(),
  };
}

/** A new database with the vault's schema, its pragmas and the ceiling's one tenant, on `engine`. */
export async function floorDatabase(engine: FloorEngineName): Promise<FloorDatabase> {
  return engine === 'sql.js' ? onSqlJs(await database(undefined)) : onNodeSqlite();
}

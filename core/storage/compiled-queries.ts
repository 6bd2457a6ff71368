/**
 * Statements compiled once and run with fresh parameters. Kysely builds and compiles a query on
 * every call, and on the hot write paths (tokenize, the audit chain, read audits) that cost as much
 * as running the statement in SQLite. A statement whose SQL depends only on a small shape (how
 * many rows an insert holds) is built once per query builder and shape and kept here.
 *
 * Rule: a shape's compiled SQL must not depend on the values, only on the key it is cached under;
 * `compileOnce` checks the parameter count against what the caller will pass.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { VaultError } from '../errors/catalogue.ts';
import type { Database } from './schema.ts';

const cache = new WeakMap<Kysely<Database>, Map<string, CompiledQuery>>();

/** Kept per builder at most; more shapes than this means a key carries values, a bug. */
const MAX_SHAPES = 1024;

/**
 * The compiled form of `build()` under `key` for this query builder, built on first use.
 * `parameters` is how many parameters the statement takes.
 */
export function compileOnce<R>(
  db: Kysely<Database>,
  key: string,
  parameters: number,
  build: () => Compilable<R>,
): CompiledQuery<R> {
  let shapes = cache.get(db);
  if (!shapes) cache.set(db, (shapes = new Map()));
  let compiled = shapes.get(key) as CompiledQuery<R> | undefined;
  if (!compiled) {
    compiled = build().compile();
    if (compiled.parameters.length !== parameters) {
      throw new VaultError('INTERNAL', `The statement "${key}" compiled with an unexpected shape.`);
    }
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, compiled);
  }
  return compiled;
}

/**
 * Runs a compiled statement on the connection a backend holds right now or can take at once, or
 * returns null where it can do neither (the statement then goes through Kysely as usual).
 */
export type DirectRunner = <R>(sql: string, parameters: readonly unknown[]) => QueryResult<R> | null;

const direct = new WeakMap<Kysely<Database>, DirectRunner>();

/**
 * Lets `runCompiled` on `db` skip Kysely's executor when `runner` has a connection at hand (the
 * embedded vault inside a transaction, or outside one while nobody holds or waits for its lock:
 * one synchronous sql.js connection, no plugins). Kysely's
 * path creates a dozen promises per statement, each paying the async hooks that
 * AsyncLocalStorage keeps enabled; a small commit runs several such statements.
 */
export function runCompiledDirectly(db: Kysely<Database>, runner: DirectRunner): void {
  direct.set(db, runner);
}

/**
 * Runs a compiled statement at once when the backend's direct runner can (see
 * `runCompiledDirectly`), else returns null: the caller then awaits `runCompiled`. A hot read
 * saves the promises of the awaited path; a statement's error is thrown here as there.
 */
export function runCompiledNow<R>(
  db: Kysely<Database>,
  compiled: CompiledQuery<R>,
  parameters: readonly unknown[],
): QueryResult<R> | null {
  return direct.get(db)?.<R>(compiled.sql, parameters) ?? null;
}

/** Runs a compiled statement with these parameters (in the order its SQL takes them). */
export function runCompiled<R>(
  db: Kysely<Database>,
  compiled: CompiledQuery<R>,
  parameters: readonly unknown[],
): Promise<QueryResult<R>> {
  const runner = direct.get(db);
  if (runner) {
    try {
      const result = runner<R>(compiled.sql, parameters);
      if (result) return Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return db.executeQuery<R>({ ...compiled, parameters });
}

/**
 * Inserts rows into `table` with one statement per `chunk` rows, each compiled once per row
 * count. Every row must name exactly `columns`, in any order; `template` is a row of placeholder
 * values naming them in that order (Kysely takes the column list from it).
 */
export async function insertRowsCompiled<Row extends object, R = never>(
  db: Kysely<Database>,
  options: {
    readonly key: string;
    readonly columns: readonly (keyof Row & string)[];
    readonly chunk: number;
    readonly build: (rows: readonly Row[]) => Compilable<R>;
    readonly template: Row;
  },
  rows: readonly Row[],
): Promise<R[]> {
  const out: R[] = [];
  const { columns, chunk } = options;
  if (Object.keys(options.template).join('\u0000') !== columns.join('\u0000')) {
    throw new VaultError('INTERNAL', `The insert "${options.key}" names its columns in another order.`);
  }
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    const compiled = compileOnce(db, `${options.key}:${part.length}`, part.length * columns.length, () =>
      options.build(part.map(() => options.template)),
    );
    const parameters: unknown[] = [];
    for (const row of part) for (const column of columns) parameters.push(row[column]);
    const result = await runCompiled(db, compiled, parameters);
    for (const r of result.rows) out.push(r);
  }
  return out;
}

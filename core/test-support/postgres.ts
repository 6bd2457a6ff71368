import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPostgresPool } from '../backends/postgres/pool.ts';
import { reportMissingPostgres } from './postgres-required.ts';

/** The local PostgreSQL of this project's machines and CI (trust authentication). */
export const TEST_POSTGRES_URL =
  process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * What the tests' sessions set: a commit returns without waiting for PostgreSQL to flush its
 * write-ahead log to disk (`synchronous_commit=off`). What a commit means to the vault does not
 * change (atomic, visible to every later statement, kept while the server runs); only a crash of
 * the database server itself could lose the last fraction of a second of commits, and no test
 * crashes it (the fault tests cut connections, which is the same either way). The tests are not
 * about the disk's flush times, and every commit of theirs waited for one (the PostgreSQL files'
 * wall time with and without: docs/performance.md). Benchmarks keep the server's own setting.
 */
const TEST_SESSION_OPTIONS = '-c synchronous_commit=off';

/** A client of the test database with the tests' session settings. */
function testClient(connectionTimeoutMillis: number): pg.Client {
  return new pg.Client({
    connectionString: TEST_POSTGRES_URL,
    connectionTimeoutMillis,
    options: TEST_SESSION_OPTIONS,
  });
}

/** Runs `work` on a connection of its own, ended after it. */
async function withTestClient<T>(
  connectionTimeoutMillis: number,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = testClient(connectionTimeoutMillis);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether the test database answers within a second (checked once per process). */
let probe: Promise<boolean> | undefined;
export function postgresAvailable(): Promise<boolean> {
  probe ??= withTestClient(1000, (client) => client.query('select 1')).then(
    () => true,
    () => false,
  );
  return probe;
}

/**
 * Whether the test database answers, as postgresAvailable; when it does not, prints that `what`
 * (a test file, or its PostgreSQL rerun) is skipped, so a run without a database says what it left
 * out, or, in CI, throws so that the file fails (core/test-support/postgres-required.ts).
 */
export async function postgresOrSkipNotice(what: string): Promise<boolean> {
  const available = await postgresAvailable();
  if (!available) reportMissingPostgres(what, process.env);
  return available;
}

/** A fresh schema of the test database, reached through `url`, dropped (with its rows) by `drop`. */
export interface TempSchema {
  readonly url: string;
  readonly schema: string;
  drop(): Promise<void>;
  /**
   * Connections to `url` that the vaults of a reused schema share (`connections` of
   * PostgresVaultOptions), kept open with the schema between its vaults and ended before it is
   * dropped; absent when reuse is off.
   */
  readonly connections?: pg.Pool;
}

/** Connections per test vault: enough for concurrent requests, few enough for parallel workers. */
export const TEST_POOL_MAX = 4;

/**
 * A new schema and the URL of a session in it. A benchmark asks for `durableCommits`: its sessions
 * then keep the server's commit setting instead of the tests' (TEST_SESSION_OPTIONS).
 */
export async function makeTempSchema(settings: { durableCommits?: boolean } = {}): Promise<TempSchema> {
  const schema = `${schemaPrefix()}${randomBytes(6).toString('hex')}`;
  await admin(`create schema ${schema}`);
  const url = new URL(TEST_POSTGRES_URL);
  const session = settings.durableCommits === true ? '' : ` ${TEST_SESSION_OPTIONS}`;
  url.searchParams.set('options', `-c search_path=${schema}${session}`);
  return { url: url.toString(), schema, drop: () => admin(`drop schema if exists ${schema} cascade`) };
}

/**
 * A new schema as makeTempSchema makes it, reached through a URL with `password` in it (trust
 * authentication ignores it): for tests that prove a command never prints the password.
 */
export async function makeTempSchemaWithPassword(password: string): Promise<TempSchema> {
  const schema = await makeTempSchema();
  const url = new URL(schema.url);
  url.password = password;
  return { ...schema, url: url.toString() };
}

/** Runs one statement on a connection of its own (with the tests' session settings). */
export async function admin(statement: string): Promise<void> {
  await withTestClient(2000, (client) => client.query(statement));
}

/**
 * The variable naming this test run (set by core/test-support/postgres-catalogue-setup.ts, the
 * global setup, before the workers start): its schemas' names start with it, and the run drops
 * every schema so named at its end (`dropRunSchemas`).
 */
export const SCHEMA_RUN_VARIABLE = 'SVC_TEST_SCHEMA_RUN';

/** How this run's schemas are named: `svc_test_<run>_…`, or `svc_test_…` outside a run. */
function schemaPrefix(): string {
  const run = process.env[SCHEMA_RUN_VARIABLE];
  return run === undefined ? 'svc_test_' : `svc_test_${run}_`;
}

/** Drops the schemas of the run the environment names (its kept ones, and any a failure left). */
export async function dropRunSchemas(): Promise<void> {
  if (process.env[SCHEMA_RUN_VARIABLE] === undefined) return;
  await withTestClient(2000, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      'select nspname as name from pg_namespace where starts_with(nspname, $1)',
      [schemaPrefix()],
    );
    for (const { name } of rows)
      await client.query(`drop schema if exists ${client.escapeIdentifier(name)} cascade`);
  });
}

/**
 * Schemas emptied and kept for the next fixture of a PostgreSQL test file, while `reuseSchemas` is
 * on (`runOnPostgres` turns it on for its file and off after it). Creating the tables (about forty
 * DDL statements) costs far more than emptying them, and most tests open a vault of their own: a
 * reused schema keeps its tables and migration ledger, and loses every row, the keyring included,
 * so the next vault is created in it as in an empty database. It keeps its connections too: a new
 * session costs the server more CPU than most tests' statements, and a vault leaves no session
 * state behind (its locks and settings are transaction-scoped).
 *
 * Within a run (SCHEMA_RUN_VARIABLE set) the kept schemas outlive the file: the worker's next
 * PostgreSQL file takes them as its own fixtures take them from each other, and the run drops them
 * at its end. A fresh schema and its first vault cost many times an emptied one's wall time and CPU
 * (here and in the server), and nearly every rerun file made one (docs/performance.md). Outside a
 * run, a file drops its own.
 */
interface KeptSchema {
  readonly schema: TempSchema;
  readonly connections: pg.Pool;
}
const kept: KeptSchema[] = [];
let reusing = false;

export function reuseSchemas(): void {
  reusing = true;
}

/**
 * Turns reuse off (after a test file). Outside a run it also drops the schemas kept for it and ends
 * the connection that emptied them; within one they wait for the next file or the run's end.
 */
export async function endSchemaReuse(): Promise<void> {
  reusing = false;
  if (process.env[SCHEMA_RUN_VARIABLE] !== undefined) return;
  const client = emptier;
  emptier = undefined;
  await client?.then((c) => c.end()).catch(() => undefined);
  for (const { schema, connections } of kept.splice(0)) {
    await connections.end().catch(() => undefined);
    emptyingStatements.delete(schema.schema);
    await schema.drop();
  }
}

/**
 * The connection that empties reused schemas, opened by the first fixture that releases one and
 * ended with the kept schemas: a new connection for each test cost CPU here and a new
 * PostgreSQL server process there. A lost connection is forgotten; the next fixture opens another.
 */
let emptier: Promise<pg.Client> | undefined;

function emptyingClient(): Promise<pg.Client> {
  if (emptier === undefined) {
    const client = testClient(2000);
    const opening = client.connect().then(() => client);
    const forget = () => {
      if (emptier === opening) emptier = undefined;
      void client.end().catch(() => undefined);
    };
    client.on('error', forget);
    opening.catch(forget);
    emptier = opening;
  }
  return emptier;
}

/**
 * A schema for one vault: an emptied one kept from an earlier fixture when reuse is on and there is
 * one, else a fresh one. `drop` empties and keeps it while reuse is on, and drops it otherwise.
 */
export async function takeTempSchema(): Promise<TempSchema> {
  const taken = reusing ? kept.pop() : undefined;
  const fresh = taken?.schema ?? (await makeTempSchema());
  if (!reusing) return fresh;
  const connections = taken?.connections ?? createPostgresPool(fresh.url, { max: TEST_POOL_MAX });
  return {
    url: fresh.url,
    schema: fresh.schema,
    connections,
    async drop() {
      if (!reusing || !(await emptied(fresh.schema))) {
        await connections.end().catch(() => undefined);
        return fresh.drop();
      }
      kept.push({ schema: fresh, connections });
    },
  };
}

/**
 * The statement that empties a schema, by schema: its tables are those the migrations made, the
 * same at every emptying (a test adds rows, not tables), so the server is not asked to
 * list them from its catalogue at every emptying.
 */
const emptyingStatements = new Map<string, string>();

/** Deletes every row but the migration ledger's; false when the schema cannot be emptied. */
async function emptied(schema: string): Promise<boolean> {
  try {
    const client = await emptyingClient();
    let statement = emptyingStatements.get(schema);
    if (statement === undefined) {
      const tables = await client.query<{ tablename: string }>(
        `select tablename from pg_tables where schemaname = $1 and tablename <> 'schema_migrations'`,
        [schema],
      );
      // DELETE, not TRUNCATE: a test leaves a few rows, and TRUNCATE rewrites every table's files.
      // Every foreign key cascades (or sets null), so the order does not matter.
      statement = tables.rows
        .map((r) => `delete from ${schema}.${client.escapeIdentifier(r.tablename)}`)
        .join('; ');
      emptyingStatements.set(schema, statement);
    }
    if (statement !== '') await client.query(statement);
    return true;
  } catch {
    emptyingStatements.delete(schema);
    return false;
  }
}

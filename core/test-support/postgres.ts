import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The local PostgreSQL of this project's machines and CI (trust authentication). */
export const TEST_POSTGRES_URL =
  process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether the test database answers within a second (checked once per process). */
let probe: Promise<boolean> | undefined;
export function postgresAvailable(): Promise<boolean> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return probe;
}

/** A fresh schema of the test database, reached through `url`, dropped (with its rows) by `drop`. */
export interface TempSchema {
  readonly url: string;
  readonly schema: string;
  drop(): Promise<void>;
}

export async function makeTempSchema(): Promise<TempSchema> {
  const schema = `svc_test_${randomBytes(6).toString('hex')}`;
  await admin(`create schema ${schema}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), schema, drop: () => admin(`drop schema if exists ${schema} cascade`) };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

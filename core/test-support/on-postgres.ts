import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, vi } from 'vitest';
import { endSchemaReuse, postgresOrSkipNotice, reuseSchemas } from './postgres.ts';

/** Each statement is a round trip to a server, not a call into memory. */
const POSTGRES_TEST_TIMEOUT_MS = 120_000;

/**
 * Runs the tests of `testFile` a second time, on the local PostgreSQL: the body of a sibling
 * `x.postgres.test.ts`, which holds one line:
 * `await runOnPostgres(new URL('./x.test.ts', import.meta.url))`.
 *
 * The fixtures (core/test-support/test-vault.ts, server/test-support/test-server.ts) open the
 * backend SVC_TEST_BACKEND names when they run, and a test file may read it while it is collected
 * (to skip a test meant for one backend): it is `postgres` from this file's import to its last
 * test, and back to what it was after (a worker runs one file at a time). The file's test vaults
 * share emptied schemas (core/test-support/postgres.ts), dropped after its last test.
 *
 * The file is loaded under its own module id (`?postgres`): its module-level state is its own, not
 * that of the embedded run of the same file in this worker. The reruns are files of the one test
 * project, so a worker goes from an embedded file to a PostgreSQL one without a new process (a
 * project of their own needed new workers, and their waits on the database were not filled by the
 * embedded files' work).
 */
export async function runOnPostgres(testFile: URL): Promise<void> {
  const name = relative(process.cwd(), fileURLToPath(testFile));
  if (!(await postgresOrSkipNotice(`${name} on PostgreSQL`))) {
    describe.skip(`${name} on PostgreSQL (not reachable)`, () => undefined);
    return;
  }
  const before = process.env.SVC_TEST_BACKEND;
  const restore = (): void => {
    if (before === undefined) delete process.env.SVC_TEST_BACKEND;
    else process.env.SVC_TEST_BACKEND = before;
  };
  beforeAll(() => {
    process.env.SVC_TEST_BACKEND = 'postgres';
    reuseSchemas();
  });
  afterAll(async () => {
    restore();
    vi.resetConfig();
    await endSchemaReuse();
  });
  vi.setConfig({ testTimeout: POSTGRES_TEST_TIMEOUT_MS });
  // Set until the last test is done: Vitest calls the file's `describe` bodies after its import.
  process.env.SVC_TEST_BACKEND = 'postgres';
  try {
    await import(/* @vite-ignore */ `${testFile.href}?postgres`);
  } catch (error) {
    restore();
    throw error;
  }
}

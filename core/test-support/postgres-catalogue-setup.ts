/**
 * Vitest global setup: compacts the test database (`VACUUM FULL`) before the run, when PostgreSQL
 * is reachable. Every run creates and drops thousands of tables in temporary schemas, which leaves
 * dead rows in the system catalogues; on a server without autovacuum (this project's machines run
 * one) they pile up run after run, and every new connection and statement of the next run reads
 * through them: after a day of runs the catalogues were most of the test database, and the
 * suite's PostgreSQL server spent far more CPU than on a compacted one (docs/performance.md).
 * Compacting takes a moment. Best effort: a user without the right to vacuum the catalogues,
 * or a failed vacuum, leaves the run as it was.
 */
import { randomBytes } from 'node:crypto';
import { admin, dropRunSchemas, postgresAvailable, SCHEMA_RUN_VARIABLE } from './postgres.ts';

/**
 * Starts the compaction and returns at once: the files start meanwhile (most do not touch the
 * database, and a schema made during the vacuum waits on its lock), instead of the whole run
 * waiting for it. The teardown waits for it, so the connection is never left open.
 *
 * It also names the run (SCHEMA_RUN_VARIABLE, inherited by the workers it starts next): the
 * PostgreSQL files keep their emptied schemas for the worker's next file, and the teardown drops
 * every schema of this run once the workers are done.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (!(await postgresAvailable())) return undefined;
  process.env[SCHEMA_RUN_VARIABLE] = randomBytes(4).toString('hex');
  const done = compact();
  return async () => {
    await done;
    // A schema left behind is not a failed test: said, not thrown.
    await dropRunSchemas().catch((error: unknown) =>
      console.warn(`\nThe test run's PostgreSQL schemas were not dropped: ${String(error)}\n`),
    );
  };
}

async function compact(): Promise<void> {
  try {
    await admin('vacuum full');
  } catch {
    // The run goes on uncompacted.
  }
}

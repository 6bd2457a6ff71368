/**
 * What a PostgreSQL test file does when the test database does not answer. On a developer's
 * machine it skips, with a notice, so the rest of the suite still runs without a database. In CI
 * (`CI` set to `true` or `1`, as CI services set it and .ci/run does) it fails: CI provides the
 * database, so a missing one is a broken CI, and a skip there would pass a run that tested nothing
 * on PostgreSQL.
 */
export type MissingPostgresOutcome = 'skip' | 'fail';

export function missingPostgresOutcome(env: NodeJS.ProcessEnv): MissingPostgresOutcome {
  const ci = env.CI?.trim().toLowerCase();
  return ci === 'true' || ci === '1' ? 'fail' : 'skip';
}

/**
 * Says that `what` (a test file, or its PostgreSQL rerun) cannot run for want of a database: a
 * notice when it may be skipped, an error (thrown, so the file fails) when `env` is CI's.
 */
export function reportMissingPostgres(what: string, env: NodeJS.ProcessEnv): void {
  const where = '127.0.0.1:5432 (or SVC_TEST_POSTGRES_URL)';
  if (missingPostgresOutcome(env) === 'fail') {
    throw new Error(
      `PostgreSQL is not reachable at ${where}, and CI=${env.CI ?? ''}: ${what} FAILS instead of ` +
        'skipping. CI must provide the test database.',
    );
  }
  console.warn(`\nPostgreSQL is not reachable at ${where}: ${what} is SKIPPED.\n`);
}

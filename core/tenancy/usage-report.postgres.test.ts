import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./usage-report.test.ts', import.meta.url));

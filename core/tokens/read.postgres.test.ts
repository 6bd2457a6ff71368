import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./read.test.ts', import.meta.url));

import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./update.test.ts', import.meta.url));

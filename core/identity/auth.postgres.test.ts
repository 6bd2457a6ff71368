import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./auth.test.ts', import.meta.url));

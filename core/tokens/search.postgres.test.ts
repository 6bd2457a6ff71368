import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./search.test.ts', import.meta.url));

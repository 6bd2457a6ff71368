import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./dedup.test.ts', import.meta.url));

import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./retention.test.ts', import.meta.url));

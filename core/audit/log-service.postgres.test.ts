import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./log-service.test.ts', import.meta.url));

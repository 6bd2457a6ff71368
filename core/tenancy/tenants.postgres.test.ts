import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./tenants.test.ts', import.meta.url));

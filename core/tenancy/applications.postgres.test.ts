import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./applications.test.ts', import.meta.url));

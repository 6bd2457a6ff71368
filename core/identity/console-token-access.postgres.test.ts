import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./console-token-access.test.ts', import.meta.url));

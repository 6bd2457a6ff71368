import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./row-authenticator.test.ts', import.meta.url));

import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./expiry.test.ts', import.meta.url));

import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./row-tampering.test.ts', import.meta.url));

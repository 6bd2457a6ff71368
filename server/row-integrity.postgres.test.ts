import { runOnPostgres } from '../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./row-integrity.test.ts', import.meta.url));

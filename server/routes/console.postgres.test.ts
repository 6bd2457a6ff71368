import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./console.test.ts', import.meta.url));

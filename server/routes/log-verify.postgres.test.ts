import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./log-verify.test.ts', import.meta.url));

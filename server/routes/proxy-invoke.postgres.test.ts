import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./proxy-invoke.test.ts', import.meta.url));

import { runOnPostgres } from '../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./access.test.ts', import.meta.url));

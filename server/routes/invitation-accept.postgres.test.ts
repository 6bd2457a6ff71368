import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./invitation-accept.test.ts', import.meta.url));

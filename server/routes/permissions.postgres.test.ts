import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./permissions.test.ts', import.meta.url));

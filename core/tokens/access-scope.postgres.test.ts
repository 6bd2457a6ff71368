import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./access-scope.test.ts', import.meta.url));

import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./members.test.ts', import.meta.url));

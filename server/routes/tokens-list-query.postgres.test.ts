import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./tokens-list-query.test.ts', import.meta.url));

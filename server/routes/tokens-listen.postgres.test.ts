import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./tokens-listen.test.ts', import.meta.url));

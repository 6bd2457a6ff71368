import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./tokens.test.ts', import.meta.url));

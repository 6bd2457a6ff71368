import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./tokens-privacy.test.ts', import.meta.url));

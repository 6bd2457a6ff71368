import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./tokens-secrets.test.ts', import.meta.url));

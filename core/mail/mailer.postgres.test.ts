import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./mailer.test.ts', import.meta.url));

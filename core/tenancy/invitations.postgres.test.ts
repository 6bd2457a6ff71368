import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./invitations.test.ts', import.meta.url));

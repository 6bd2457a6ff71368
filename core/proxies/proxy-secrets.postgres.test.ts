import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./proxy-secrets.test.ts', import.meta.url));

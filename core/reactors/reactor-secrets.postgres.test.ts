import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./reactor-secrets.test.ts', import.meta.url));

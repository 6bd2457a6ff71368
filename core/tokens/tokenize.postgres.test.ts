import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./tokenize.test.ts', import.meta.url));

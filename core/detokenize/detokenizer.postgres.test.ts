import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./detokenizer.test.ts', import.meta.url));

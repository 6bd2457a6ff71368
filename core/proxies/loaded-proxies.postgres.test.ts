import { runOnPostgres } from '../test-support/on-postgres.ts';

await runOnPostgres(new URL('./loaded-proxies.test.ts', import.meta.url));

import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./applications-expiring.test.ts', import.meta.url));

import { runOnPostgres } from '../../core/test-support/on-postgres.ts';

await runOnPostgres(new URL('./vault-headroom.test.ts', import.meta.url));

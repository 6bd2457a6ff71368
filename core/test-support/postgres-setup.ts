import { afterAll } from 'vitest';
import { dropReusedSchemas, reuseSchemas } from './postgres.ts';

/**
 * Setup file of the `postgres` test project: the test vaults of one file share emptied schemas
 * (core/test-support/postgres.ts), dropped when the file is done.
 */
reuseSchemas();
afterAll(() => dropReusedSchemas());

import type { Clock } from '../vault/types.ts';
import { createPostgresVault } from '../vault/postgres-vault.ts';
import { takeTempSchema } from './postgres.ts';
import { createTempVault, makeTempDir, tempVaultIn } from './temp-vault.ts';
import type { TempVault } from './temp-vault.ts';

/**
 * The storage backend the test fixtures open: the embedded file unless SVC_TEST_BACKEND=postgres
 * (set by the `postgres` test project in vitest.config.ts, which reruns the service and server
 * tests on the local PostgreSQL).
 */
export type TestBackend = 'embedded' | 'postgres';
export function testBackend(): TestBackend {
  return process.env.SVC_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded';
}

/** Connections per test vault: enough for concurrent requests, few enough for parallel workers. */
const TEST_POOL_MAX = 4;

/**
 * A real vault on the test backend, removed by `dispose`: a temp vault file (createTempVault), or
 * a fresh schema of the test database (dropped with its rows) beside a temp folder for the files a
 * test writes (outbox, backups). Tests about the file itself use createTempVault directly.
 */
export async function createTestVault(options: { readonly clock?: Clock } = {}): Promise<TempVault> {
  if (testBackend() === 'embedded') return createTempVault(options);
  const tmp = await makeTempDir();
  const schema = await takeTempSchema().catch(async (error: unknown) => {
    await tmp.cleanup();
    throw error;
  });
  try {
    const vault = await createPostgresVault({
      url: schema.url,
      key: tmp.key,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      pool: { max: TEST_POOL_MAX },
    });
    return tempVaultIn(tmp, vault, () => schema.drop());
  } catch (error) {
    await schema.drop();
    await tmp.cleanup();
    throw error;
  }
}

import { createVault } from '../vault/index.ts';
import type { Clock } from '../vault/clock.ts';
import { createPostgresVault } from '../backends/postgres/postgres-vault.ts';
import { TEST_POOL_MAX, takeTempSchema } from './postgres.ts';
import { copyTempVault, createTempVault, makeTempDir, tempVaultIn } from './temp-vault.ts';
import type { TempVault } from './temp-vault.ts';
import { unsyncedFs } from './unsynced-fs.ts';

/**
 * The storage backend the test fixtures open: the embedded file unless SVC_TEST_BACKEND=postgres
 * (set by the `postgres` test project in vitest.config.ts, which reruns the service and server
 * tests on the local PostgreSQL).
 */
export type TestBackend = 'embedded' | 'postgres';
export function testBackend(): TestBackend {
  return process.env.SVC_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded';
}

/**
 * A real vault on the test backend, removed by `dispose`: a temp vault file (a copy of a new
 * vault's files, see `newVaultFiles`), or a fresh schema of the test database (dropped with its
 * rows) beside a temp folder for the files a test writes (outbox, backups). Tests about the file
 * itself, or that need a vault id or key of their own, use createTempVault directly.
 */
export async function createTestVault(options: { readonly clock?: Clock } = {}): Promise<TempVault> {
  if (testBackend() === 'embedded') {
    const files = await newVaultFiles(options.clock);
    return files === undefined ? createTempVault(options) : copyTempVault(files, options);
  }
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
      ...(schema.connections === undefined ? {} : { connections: schema.connections }),
    });
    return tempVaultIn(tmp, vault, () => schema.drop());
  } catch (error) {
    await schema.drop();
    await tmp.cleanup();
    throw error;
  }
}

/** The closed new vaults of this process, by the instant they were created at ('system': no clock). */
const newVaults = new Map<string, Promise<TempVault>>();

/**
 * The files of a new vault, as createVault leaves them (schema migrated, nothing else), created at
 * the instant `clock` reads now, then closed without a snapshot and kept for the rest of the run in
 * the folder SVC_TEST_NEW_VAULTS names (core/test-support/new-vaults-setup.ts removes it). Creating
 * and migrating a vault costs several times as much CPU as opening a copy of its files: each test
 * vault is such a copy, with the rows and timestamps a new vault would have at that instant.
 * Without a clock, the instant is the first such test's in the process (minutes early at most: a
 * vault's creation time shows only in its status and its first key term's creation time, and keys
 * rotate only when an operator asks). The copies share the vault id and keys (random for each new
 * vault), which no test of services or routes looks at. Without the folder, each test creates its
 * own.
 */
async function newVaultFiles(clock: Clock | undefined): Promise<TempVault | undefined> {
  const root = process.env.SVC_TEST_NEW_VAULTS;
  if (root === undefined) return undefined;
  const at = clock?.now();
  const instant = at === undefined ? 'system' : at.toISOString();
  let files = newVaults.get(instant);
  if (files === undefined) {
    files = (async () => {
      const tmp = await makeTempDir('vault-', root);
      const vault = await createVault({
        path: tmp.vaultPath,
        key: tmp.key,
        fs: unsyncedFs,
        ...(at === undefined ? {} : { clock: { now: () => new Date(at) } }),
      });
      await vault.close({ snapshot: false });
      return tempVaultIn(tmp, vault);
    })();
    newVaults.set(instant, files);
    // A failed creation is not kept: the next test tries again.
    files.catch(() => newVaults.delete(instant));
  }
  return files;
}

import { rmSync } from 'node:fs';
import type { Clock } from '../vault/types.ts';
import { createPostgresVault } from '../vault/postgres-vault.ts';
import { takeTempSchema } from './postgres.ts';
import { copyTempVault, createTempVault, makeTempDir, tempVaultIn } from './temp-vault.ts';
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
 * A real vault on the test backend, removed by `dispose`: a temp vault file (a copy of a new
 * vault's files, see `newVaultFiles`), or a fresh schema of the test database (dropped with its
 * rows) beside a temp folder for the files a test writes (outbox, backups). Tests about the file
 * itself, or that need a vault id or key of their own, use createTempVault directly.
 */
export async function createTestVault(options: { readonly clock?: Clock } = {}): Promise<TempVault> {
  if (testBackend() === 'embedded') return copyTempVault(await newVaultFiles(options.clock), options);
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

/** The closed new vaults of this process, by the instant they were created at ('system': no clock). */
const newVaults = new Map<string, Promise<TempVault>>();
/** Their folders, removed when the process exits (one listener for them all). */
const newVaultDirs: string[] = [];
process.once('exit', () => {
  for (const dir of newVaultDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The files of a new vault, as createVault leaves them (schema migrated, nothing else), created at
 * the instant `clock` reads now, then closed without a snapshot and kept for the rest of the process
 * (removed when it exits). Creating and migrating a vault costs ≈ 100 ms of CPU, opening a copy of
 * its files ≈ 15 ms: each test vault is such a copy, with the rows and timestamps a new vault
 * would have at that instant. Without a clock, the instant is the first such test's in the process
 * (a vault's creation time shows only in its status). The copies share the vault id and keys
 * (random for each new vault), which no test of services or routes looks at.
 */
function newVaultFiles(clock: Clock | undefined): Promise<TempVault> {
  const at = clock?.now();
  const instant = at === undefined ? 'system' : at.toISOString();
  let files = newVaults.get(instant);
  if (files === undefined) {
    files = (async () => {
      const created = await createTempVault(at === undefined ? {} : { clock: { now: () => new Date(at) } });
      newVaultDirs.push(created.dir);
      await created.vault.close({ snapshot: false });
      return created;
    })();
    newVaults.set(instant, files);
    // A failed creation is not kept: the next test tries again.
    files.catch(() => newVaults.delete(instant));
  }
  return files;
}

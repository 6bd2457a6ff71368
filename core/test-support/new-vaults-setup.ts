/**
 * Vitest global setup: a folder for the run's new-vault templates (createTestVault copies their
 * files, core/test-support/test-vault.ts), named in SVC_TEST_NEW_VAULTS and removed after the run.
 * The test workers are ended without their exit handlers running, so they cannot remove it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // Vitest runs a global setup once for the root and once for each project, in one process.
  if (process.env.SVC_TEST_NEW_VAULTS !== undefined) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-new-vaults-'));
  process.env.SVC_TEST_NEW_VAULTS = dir;
  return async () => {
    delete process.env.SVC_TEST_NEW_VAULTS;
    await rm(dir, { recursive: true, force: true });
  };
}

import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSodium } from '../../crypto/sodium.ts';
import { vaultPaths } from './paths.ts';
import { nodeStorageFs } from './storage-fs.ts';
import { faultyFs } from './test-support/faulty-fs.ts';
import type { Fault } from './test-support/faulty-fs.ts';
import { openVaultFile, readHeader } from './vault-file.ts';
import type { VaultHeader } from './vault-file.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { createVault, openVault } from '../../vault/index.ts';
import { unlockKeyring } from '../../vault/load.ts';
import { buildSnapshotFromFiles } from './snapshot-build.ts';
import type { SnapshotBuildRequest } from './snapshot-build.ts';

describe('building a snapshot from the files', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.cleanup());

  /**
   * A vault left as a crash during a background snapshot leaves it: the old snapshot, the closed
   * segment (`vault.journal.prev`) with `count` commits, the new segment; and the request that
   * snapshot would have made.
   */
  async function closedSegment(count: number): Promise<SnapshotBuildRequest> {
    let fault: Fault | null = null;
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs: faultyFs(() => fault) });
    for (let i = 0; i < count; i++) {
      await vault.transaction(async (trx) => {
        await trx
          .insertInto('vault_meta')
          .values({ key: `k-${i}`, value: 'v' })
          .execute();
      });
    }
    const sequence = vault.sequence;
    fault = (op, path) => (op === 'create' && path.includes('.vault.svc.') ? 'EIO' : null);
    await expect(vault.compact()).rejects.toThrow();
    await vault.close({ snapshot: false });
    const sodium = await loadSodium();
    const handle = await openVaultFile(tmp.vaultPath);
    let onDisk: VaultHeader;
    try {
      onDisk = (await readHeader(sodium, handle, tmp.vaultPath)).header;
    } finally {
      await handle.close();
    }
    const keyring = unlockKeyring(sodium, onDisk, tmp.key);
    const paths = vaultPaths(tmp.vaultPath);
    return {
      vaultPath: paths.vault,
      segmentPath: paths.previousJournal,
      header: { ...onDisk, snapshot: { ...onDisk.snapshot, sequence } },
      fileKeys: keyring.terms.map((term) => [term, keyring.fileKey(term)] as const),
    };
  }

  it('writes the old snapshot plus the closed segment as the new vault file', async () => {
    const request = await closedSegment(5);
    await buildSnapshotFromFiles(await loadSodium(), nodeStorageFs, request);
    const sodium = await loadSodium();
    const handle = await openVaultFile(tmp.vaultPath);
    try {
      expect((await readHeader(sodium, handle, tmp.vaultPath)).header.snapshot.sequence).toBe(
        request.header.snapshot.sequence,
      );
    } finally {
      await handle.close();
    }
    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    const rows = await again.db.selectFrom('vault_meta').select('key').where('key', 'like', 'k-%').execute();
    expect(rows).toHaveLength(5);
    await again.close();
  });

  it('refuses a segment that does not end where it was closed, leaving the vault file as it was', async () => {
    const request = await closedSegment(3);
    const before = await readFile(tmp.vaultPath);
    const ahead = { ...request.header, snapshot: { ...request.header.snapshot, sequence: 99 } };
    await expect(
      buildSnapshotFromFiles(await loadSodium(), nodeStorageFs, { ...request, header: ahead }),
    ).rejects.toMatchObject({ code: 'VAULT_CORRUPT' });
    expect((await readFile(tmp.vaultPath)).equals(before)).toBe(true);
  });

  it('refuses to build without the key of a term its files use', async () => {
    const request = await closedSegment(1);
    const before = await readFile(tmp.vaultPath);
    await expect(
      buildSnapshotFromFiles(await loadSodium(), nodeStorageFs, { ...request, fileKeys: [] }),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
    expect((await readFile(tmp.vaultPath)).equals(before)).toBe(true);
  });
});

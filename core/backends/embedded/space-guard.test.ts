import { appendFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { makeTempDir, snapshotFiles } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { ManualClock, createVault, openVault, readVaultStatus } from '../../vault/index.ts';
import type { VaultHandle } from '../../vault/types.ts';
import { FREE_SPACE_MAX_AGE_MS } from './free-space.ts';
import { vaultPaths } from './paths.ts';
import { faultyFs } from './test-support/faulty-fs.ts';
import type { Fault } from './test-support/faulty-fs.ts';

const MIB = 1024 * 1024;

async function put(vault: VaultHandle, key: string, value = 'v'): Promise<void> {
  await vault.transaction(async (trx) => {
    await trx.insertInto('vault_meta').values({ key, value }).execute();
  });
}

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error,
  );
}

describe('storage headroom', () => {
  let tmp: TempDir;
  let free: number;
  let fault: Fault | null;
  const fs = faultyFs(
    () => fault,
    undefined,
    () => free,
  );
  beforeEach(async () => {
    tmp = await makeTempDir();
    free = 10_000 * MIB;
    fault = null;
  });
  afterEach(() => tmp.cleanup());

  /** The disk space a vault of reservedVault keeps in reserve. */
  const RESERVE = 32 * MIB;

  /** A new vault on the test's disk that keeps RESERVE free, its free-space readings aged by `clock`. */
  function reservedVault(clock: ManualClock): Promise<VaultHandle> {
    return createVault({
      path: tmp.vaultPath,
      key: tmp.key,
      fs,
      clock,
      limits: { minFreeDiskBytes: RESERVE },
    });
  }

  it('refuses writes with a clear problem while the disk is below its reserve, and resumes after', async () => {
    const clock = new ManualClock();
    const vault = await reservedVault(clock);
    await put(vault, 'before');
    const records = (await readVaultStatus(tmp.vaultPath)).journal_records;
    free = 5 * MIB;
    // Space taken by another program shows once the last reading is older than its maximum age.
    await put(vault, 'within the age of the last reading');
    clock.advance(FREE_SPACE_MAX_AGE_MS + 1);
    const err = await failure(put(vault, 'refused'));
    expect(isVaultError(err, 'VAULT_DISK_FULL')).toBe(true);
    expect(err.message).toMatch(
      /^The disk is full: 5\.0 MiB free .* less than the 32 MiB it keeps in reserve/,
    );
    // Nothing was attempted: no journal record, and the vault has not failed.
    expect((await readVaultStatus(tmp.vaultPath)).journal_records).toBe(records + 1);
    expect(vault.failure).toBeNull();
    free = 100 * MIB;
    await put(vault, 'after');
    expect((await vault.db.selectFrom('vault_meta').select('key').execute()).map((r) => r.key)).toEqual(
      expect.arrayContaining(['before', 'after']),
    );
    await vault.close();
  });

  it("counts the vault's own journal writes against the last reading, and reads afresh before refusing", async () => {
    const clock = new ManualClock();
    const vault = await reservedVault(clock);
    await put(vault, 'first');
    // The reading says 64 KiB above the reserve; the disk really fills as the journal grows.
    free = RESERVE + 64 * 1024;
    clock.advance(FREE_SPACE_MAX_AGE_MS + 1);
    await put(vault, 'read afresh');
    const journalBefore = (await readVaultStatus(tmp.vaultPath)).journal_bytes;
    let written = 0;
    let err: (Error & { code?: string }) | null = null;
    while (!err && written < 100) {
      // Each write takes its journal record's bytes off the disk, as a real disk would.
      const status = await readVaultStatus(tmp.vaultPath);
      free = RESERVE + 64 * 1024 - (status.journal_bytes - journalBefore);
      try {
        await put(vault, `row-${written}`, 'x'.repeat(8 * 1024));
        written++;
      } catch (e) {
        err = e as Error;
      }
    }
    // Refused with no time passing: the vault's own writes came off the reading.
    expect(err && isVaultError(err, 'VAULT_DISK_FULL'), String(err)).toBe(true);
    expect(written).toBeGreaterThan(2);
    expect(written).toBeLessThan(10);
    // The refusal came from a fresh reading: with space freed it goes on at once.
    free = 10_000 * MIB;
    await put(vault, 'after');
    await vault.close();
  });

  it('refuses writes once the database reaches its size limit, before sql.js runs out of memory', async () => {
    const created = await createVault({ path: tmp.vaultPath, key: tmp.key, fs });
    await created.close();
    const vault = await openVault({
      path: tmp.vaultPath,
      key: tmp.key,
      fs,
      limits: { maxDatabaseBytes: 400 * 1024 },
    });
    let written = 0;
    let err: (Error & { code?: string }) | null = null;
    while (written < 1000 && !err) {
      try {
        await put(vault, `row-${written}`, 'x'.repeat(2000));
        written++;
      } catch (e) {
        err = e as Error;
      }
    }
    expect(err && isVaultError(err, 'VAULT_DISK_FULL'), String(err)).toBe(true);
    expect(err?.message).toMatch(/^The vault's database is full: .* at its limit of 0\.4 MiB/);
    expect(written).toBeGreaterThan(10);
    expect(vault.failure).toBeNull();
    const count = await vault.db
      .selectFrom('vault_meta')
      .select('key')
      .where('key', 'like', 'row-%')
      .execute();
    expect(count).toHaveLength(written);
    await vault.close();
  });

  it('says ENOSPC plainly when a snapshot cannot be written, and loses nothing', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs });
    await put(vault, 'journaled');
    fault = (op, path) => (op === 'write' && path.includes('.vault.svc.') ? 'ENOSPC' : null);
    const err = await failure(vault.compact());
    expect(isVaultError(err, 'VAULT_DISK_FULL')).toBe(true);
    expect(err.message).toContain(
      'The disk is full (ENOSPC): the snapshot could not be written; nothing is lost',
    );
    fault = null;
    await put(vault, 'after');
    await vault.close({ snapshot: false });
    const again = await openVault({ path: tmp.vaultPath, key: tmp.key, fs });
    const keys = (await again.db.selectFrom('vault_meta').select('key').execute()).map((r) => r.key);
    expect(keys).toEqual(expect.arrayContaining(['journaled', 'after']));
    await again.close();
  });

  it('says the disk is full when reopening on a disk that is still full, changing nothing', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs });
    await put(vault, 'kept');
    await vault.close({ snapshot: false });
    free = 1 * MIB;
    const before = await snapshotFiles(tmp.dir);
    const err = await failure(openVault({ path: tmp.vaultPath, key: tmp.key, fs }));
    expect(isVaultError(err, 'VAULT_DISK_FULL')).toBe(true);
    expect(err.message).toMatch(
      /^The disk is full: 1\.0 MiB free .* so the vault cannot be opened for writing/,
    );
    expect(await snapshotFiles(tmp.dir)).toEqual(before);
  });

  it('says ENOSPC plainly when a write during opening fails for lack of space', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs });
    await put(vault, 'kept');
    await vault.close({ snapshot: false });
    // A torn tail must be cut on open: that write fails as the disk really is full.
    await appendFile(vaultPaths(tmp.vaultPath).journal, Buffer.from([1, 2, 3]));
    fault = (op) => (op === 'write' || op === 'create' ? 'ENOSPC' : null);
    const err = await failure(openVault({ path: tmp.vaultPath, key: tmp.key, fs }));
    expect(isVaultError(err, 'VAULT_DISK_FULL')).toBe(true);
    expect(err.message).toContain('The disk is full (ENOSPC): the vault cannot be opened for writing');
    fault = null;
    const again = await openVault({ path: tmp.vaultPath, key: tmp.key, fs });
    expect(
      await again.db.selectFrom('vault_meta').select('key').where('key', '=', 'kept').execute(),
    ).toHaveLength(1);
    await again.close();
  });
});

import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test-support/temp-vault.ts';
import { createVault, openVault, readVaultStatus } from '../vault/index.ts';
import {
  HEADROOM_WARN_AT,
  HeadroomWarnings,
  describeHeadroomWarning,
  vaultHeadroom,
  type DiskSpace,
  type VaultHeadroom,
} from './headroom.ts';
import { DEFAULT_STORAGE_LIMITS, type StorageLimits } from '../backends/embedded/space-guard.ts';
import { unsyncedFs } from '../test-support/unsynced-fs.ts';

const MIB = 1024 * 1024;
const LIMITS: StorageLimits = { maxDatabaseBytes: 1000 * MIB, minFreeDiskBytes: 100 * MIB };

/** A size source the test sets by hand: the database's size and the disk's free and total space. */
function gauges(databaseBytes: number | null, disk: DiskSpace | null): VaultHeadroom {
  return vaultHeadroom({ databaseBytes, limits: LIMITS, disk });
}

describe('the headroom', () => {
  it('measures the database against its limit and the disk above its reserve', () => {
    const headroom = gauges(250 * MIB, { freeBytes: 300 * MIB, totalBytes: 1100 * MIB });
    expect(headroom).toEqual({
      warn_at: HEADROOM_WARN_AT,
      database: { bytes: 250 * MIB, limit_bytes: 1000 * MIB, used: 0.25 },
      // 800 of the 1000 MiB above the reserve are taken.
      disk: { free_bytes: 300 * MIB, total_bytes: 1100 * MIB, reserve_bytes: 100 * MIB, used: 0.8 },
    });
  });

  it('reaches 1 where writes are refused: the database at its limit, the free space at the reserve', () => {
    const headroom = gauges(1000 * MIB, { freeBytes: 100 * MIB, totalBytes: 1100 * MIB });
    expect(headroom.database.used).toBe(1);
    expect(headroom.disk?.used).toBe(1);
  });

  it('says what it cannot know: an unknown size, a disk that cannot tell, and no limit on PostgreSQL', () => {
    expect(gauges(null, null)).toMatchObject({
      database: { bytes: null, limit_bytes: 1000 * MIB, used: null },
      disk: null,
    });
    expect(gauges(1, { freeBytes: Number.POSITIVE_INFINITY, totalBytes: 0 }).disk).toBeNull();
    expect(vaultHeadroom({ databaseBytes: 5 * MIB, limits: null, disk: null })).toEqual({
      warn_at: HEADROOM_WARN_AT,
      database: { bytes: 5 * MIB, limit_bytes: null, used: null },
      disk: null,
    });
  });
});

describe('the headroom warnings', () => {
  const disk = (freeMib: number): DiskSpace => ({ freeBytes: freeMib * MIB, totalBytes: 1100 * MIB });

  it('warn once as a gauge passes the share, again only after it fell back below and rose again', () => {
    const warnings = new HeadroomWarnings();
    expect(warnings.check(gauges(700 * MIB, disk(900)))).toEqual([]);
    expect(warnings.check(gauges(800 * MIB, disk(900)))).toEqual([
      { gauge: 'database', used: 0.8, bytes: 800 * MIB, limitBytes: 1000 * MIB },
    ]);
    // Still over, and higher: no second warning.
    expect(warnings.check(gauges(900 * MIB, disk(900)))).toEqual([]);
    expect(warnings.check(gauges(950 * MIB, disk(900)))).toEqual([]);
    // Back below (data deleted, compacted), then over again.
    expect(warnings.check(gauges(500 * MIB, disk(900)))).toEqual([]);
    expect(warnings.check(gauges(850 * MIB, disk(900)))).toMatchObject([{ gauge: 'database' }]);
  });

  it('watch the disk on its own, and never the gauges that cannot be measured', () => {
    const warnings = new HeadroomWarnings();
    expect(warnings.check(gauges(0, disk(150)))).toEqual([
      { gauge: 'disk', used: 0.95, freeBytes: 150 * MIB, reserveBytes: 100 * MIB },
    ]);
    expect(warnings.check(gauges(0, disk(120)))).toEqual([]);
    expect(warnings.check(gauges(null, null))).toEqual([]);
    expect(warnings.check(gauges(0, disk(110)))).toMatchObject([{ gauge: 'disk' }]);
  });

  it('describe a warning by its figures', () => {
    expect(
      describeHeadroomWarning({ gauge: 'database', used: 0.8125, bytes: 1248 * MIB, limitBytes: 1536 * MIB }),
    ).toBe(
      "The vault's database is at 81 % of its limit (1248 of 1536 MiB); writes are refused at the limit.",
    );
    expect(
      describeHeadroomWarning({ gauge: 'disk', used: 0.9, freeBytes: 500 * MIB, reserveBytes: 64 * MIB }),
    ).toBe(
      'The disk holding the vault is at 90 % of the space it may fill (500 MiB free, 64 MiB kept in reserve); writes are refused at the reserve.',
    );
  });
});

describe("an embedded vault's headroom", () => {
  it("is the open database's size against its limits, and unknown in the files' status alone", async () => {
    const tmp = await makeTempDir();
    try {
      const limits = { ...DEFAULT_STORAGE_LIMITS, maxDatabaseBytes: 64 * MIB };
      const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs: unsyncedFs, limits });
      const headroom = await vault.headroom();
      expect(headroom.database.bytes).toBeGreaterThan(0);
      expect(headroom.database.limit_bytes).toBe(64 * MIB);
      expect(headroom.database.used).toBeCloseTo((headroom.database.bytes ?? 0) / (64 * MIB));
      expect(headroom.disk?.reserve_bytes).toBe(DEFAULT_STORAGE_LIMITS.minFreeDiskBytes);
      expect(headroom.disk?.free_bytes).toBeGreaterThan(0);
      expect((await vault.status()).headroom.database).toEqual(headroom.database);
      await vault.close();
      // Without the vault open, its size is not known; the limit shown is the default one.
      const closed = await readVaultStatus(tmp.vaultPath);
      expect(closed.headroom.database).toEqual({
        bytes: null,
        limit_bytes: DEFAULT_STORAGE_LIMITS.maxDatabaseBytes,
        used: null,
      });
      const reopened = await openVault({ path: tmp.vaultPath, key: tmp.key, fs: unsyncedFs });
      expect((await reopened.headroom()).database.limit_bytes).toBe(DEFAULT_STORAGE_LIMITS.maxDatabaseBytes);
      await reopened.close();
    } finally {
      await tmp.cleanup();
    }
  });
});

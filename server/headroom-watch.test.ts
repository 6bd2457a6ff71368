import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { vaultHeadroom, type VaultHeadroom } from '../core/storage/headroom.ts';
import { DEFAULT_STORAGE_LIMITS } from '../core/backends/embedded/space-guard.ts';
import { makeTempDir } from '../core/test-support/temp-vault.ts';
import { unsyncedFs } from '../core/test-support/unsynced-fs.ts';
import { createVault, openVault } from '../core/vault/index.ts';
import { watchHeadroom } from './headroom-watch.ts';
import { startServer } from './listen.ts';
import { captureLogs } from './test-support/log-capture.ts';

const MIB = 1024 * 1024;
const LIMITS = { maxDatabaseBytes: 100 * MIB, minFreeDiskBytes: 10 * MIB };

function logInto(lines: Array<Record<string, unknown>>) {
  return pino({ level: 'info' }, { write: (chunk: string) => void lines.push(JSON.parse(chunk)) });
}

describe('the headroom watch', () => {
  it('logs a warning with figures only as a gauge crosses the share, and not again while it stays over', async () => {
    const lines: Array<Record<string, unknown>> = [];
    let databaseBytes = 50 * MIB;
    const source = {
      headroom: async (): Promise<VaultHeadroom> =>
        vaultHeadroom({
          databaseBytes,
          limits: LIMITS,
          disk: { freeBytes: 500 * MIB, totalBytes: 1000 * MIB },
        }),
    };
    const watch = watchHeadroom(logInto(lines), source, 3_600_000);
    try {
      await watch.firstLook;
      expect(lines).toEqual([]);
      databaseBytes = 90 * MIB;
      await watch.look();
      await watch.look();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 40,
        headroom: { gauge: 'database', used: 0.9, bytes: 90 * MIB, limitBytes: 100 * MIB },
        msg: "The vault's database is at 90 % of its limit (90 of 100 MiB); writes are refused at the limit.",
      });
      databaseBytes = 10 * MIB;
      await watch.look();
      databaseBytes = 85 * MIB;
      await watch.look();
      expect(lines).toHaveLength(2);
    } finally {
      await watch.stop();
    }
  });

  it('runs in a listening server: a vault past the share is warned about at start', async () => {
    const tmp = await makeTempDir();
    try {
      const created = await createVault({ path: tmp.vaultPath, key: tmp.key, fs: unsyncedFs });
      const bytes = (await created.headroom()).database.bytes ?? 0;
      await created.close();
      // A limit the fresh vault's database already fills to 90 %.
      const limits = { ...DEFAULT_STORAGE_LIMITS, maxDatabaseBytes: Math.ceil(bytes / 0.9) };
      const vault = await openVault({ path: tmp.vaultPath, key: tmp.key, fs: unsyncedFs, limits });
      const logs = captureLogs();
      const server = await startServer(vault, { host: '127.0.0.1', port: 0, logger: logs.logger });
      try {
        await server.headroomChecked;
        const warnings = logs.lines().filter((line) => line.level === 40 && 'headroom' in line);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]?.headroom).toMatchObject({ gauge: 'database' });
      } finally {
        await server.close();
        await vault.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});

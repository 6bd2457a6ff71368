import { constants } from 'node:fs';
import { readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeStorageFs } from '../backends/embedded/storage-fs.ts';
import type { StorageFs } from '../backends/embedded/storage-fs.ts';
import { makeTempDir } from './temp-vault.ts';
import type { TempDir } from './temp-vault.ts';
import { unsyncedFs } from './unsynced-fs.ts';

/** The open flags of this process's descriptor of `path`, from Linux's /proc/self/fdinfo. */
async function openFlagsOf(path: string): Promise<number> {
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target !== path) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined) return Number.parseInt(flags, 8);
  }
  throw new Error(`${path} is not open`);
}

async function durableOpenFlags(fs: StorageFs, path: string): Promise<number> {
  const handle = await fs.open(path, 'r+durable');
  try {
    return await openFlagsOf(path);
  } finally {
    await handle.close();
  }
}

describe.runIf(process.platform === 'linux' && constants.O_DSYNC !== undefined)('unsyncedFs', () => {
  let temp: TempDir;
  afterEach(async () => temp.cleanup());

  it('opens a file asked for as durable without O_DSYNC, so its writes never wait for the disk', async () => {
    temp = await makeTempDir();
    const path = join(temp.dir, 'journal');
    await writeFile(path, 'x');
    expect((await durableOpenFlags(nodeStorageFs, path)) & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect((await durableOpenFlags(unsyncedFs, path)) & constants.O_DSYNC).toBe(0);
  });
});

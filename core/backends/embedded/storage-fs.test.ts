import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeStorageFs } from './storage-fs.ts';

describe('a file opened r+durable', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-storage-fs-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads, writes, truncates and syncs like r+', async () => {
    const path = join(dir, 'f');
    await writeFile(path, 'hello world');
    const handle = await nodeStorageFs.open(path, 'r+durable');
    try {
      await handle.write(Buffer.from('HELLO'), 0, 5, 0);
      await handle.datasync();
      expect((await handle.readFile()).toString()).toBe('HELLO world');
      await handle.truncate(5);
      await handle.datasync();
      await handle.write(Buffer.from('!'), 0, 1, 5);
      await handle.sync();
      expect((await handle.stat()).size).toBe(6);
      const buffer = Buffer.alloc(6);
      expect((await handle.read(buffer, 0, 6, 0)).bytesRead).toBe(6);
      expect(buffer.toString()).toBe('HELLO!');
    } finally {
      await handle.close();
    }
    expect(await readFile(path, 'utf8')).toBe('HELLO!');
  });

  it('does not create a missing file', async () => {
    await expect(nodeStorageFs.open(join(dir, 'missing'), 'r+durable')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

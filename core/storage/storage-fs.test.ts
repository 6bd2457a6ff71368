import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callingThreadStorageFs, nodeStorageFs } from './storage-fs.ts';

describe.each([
  ['the I/O pool', nodeStorageFs],
  ['the calling thread', callingThreadStorageFs],
])('a file opened r+durable, its calls on %s', (_where, fs) => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-storage-fs-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads, writes, truncates and syncs like r+', async () => {
    const path = join(dir, 'f');
    await writeFile(path, 'hello world');
    const handle = await fs.open(path, 'r+durable');
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
    await expect(fs.open(join(dir, 'missing'), 'r+durable')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('file operations on the calling thread', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-storage-fs-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('creates exclusively, renames, links, syncs and reports errors as the I/O pool does', async () => {
    const fs = callingThreadStorageFs;
    const path = join(dir, 'new');
    const handle = await fs.open(path, 'wx', 0o600);
    try {
      await handle.write(Buffer.from('abc'), 0, 3, 0);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await expect(fs.open(path, 'wx', 0o600)).rejects.toMatchObject({ code: 'EEXIST' });
    await fs.rename(path, join(dir, 'renamed'));
    await fs.link(join(dir, 'renamed'), join(dir, 'linked'));
    await fs.syncDirectory(dir);
    expect((await fs.stat(join(dir, 'linked'))).size).toBe(3);
    expect((await fs.readFile(join(dir, 'renamed'))).toString()).toBe('abc');
    await fs.unlink(join(dir, 'renamed'));
    await expect(fs.stat(join(dir, 'renamed'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.freeBytes(dir)).toBeGreaterThan(0);
  });
});

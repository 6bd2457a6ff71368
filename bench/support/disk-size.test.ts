import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diskBytes } from './disk-size.ts';

describe('diskBytes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-disk-size-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('sums the files of a folder and of the folders inside it', async () => {
    await writeFile(join(dir, 'vault.svc'), Buffer.alloc(1000));
    await writeFile(join(dir, 'vault.journal'), Buffer.alloc(200));
    await mkdir(join(dir, 'vault.audit', 'old'), { recursive: true });
    await writeFile(join(dir, 'vault.audit', 'segment-1'), Buffer.alloc(30));
    await writeFile(join(dir, 'vault.audit', 'old', 'segment-0'), Buffer.alloc(4));
    await writeFile(join(dir, 'other.txt'), Buffer.alloc(5));
    expect(await diskBytes(dir)).toBe(1239);
    expect(await diskBytes(dir, 'vault')).toBe(1234);
    expect(await diskBytes(dir, 'vault.audit')).toBe(34);
  });

  it('is 0 for a folder that is not there', async () => {
    expect(await diskBytes(join(dir, 'missing'))).toBe(0);
  });
});

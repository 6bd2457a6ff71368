import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../../core/test-support/temp-vault.ts';
import { FETCH_FAILED, electronBinary, ensureElectronBinary } from './launch.ts';

describe('launch', () => {
  it('finds the binary the electron package recorded, and nothing before it is fetched', async () => {
    const temp = await makeTempDir('svc-electron-');
    try {
      expect(electronBinary(temp.dir)).toBeNull();
      await writeFile(join(temp.dir, 'path.txt'), 'electron');
      expect(electronBinary(temp.dir)).toBeNull();
      await mkdir(join(temp.dir, 'dist'));
      await writeFile(join(temp.dir, 'dist', 'electron'), '');
      expect(electronBinary(temp.dir)).toBe(join(temp.dir, 'dist', 'electron'));
    } finally {
      await temp.cleanup();
    }
  });

  it('runs the package installer when the binary is missing and says clearly when that fails', async () => {
    const temp = await makeTempDir('svc-electron-');
    try {
      // An installer that fails, as it does without network access.
      await writeFile(join(temp.dir, 'install.js'), 'process.exit(1)');
      const log = vi.fn();
      expect(ensureElectronBinary(temp.dir, log)).toBeNull();
      expect(log).toHaveBeenLastCalledWith(FETCH_FAILED);
    } finally {
      await temp.cleanup();
    }
  });
});

import { errnoOf } from '../../backends/embedded/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../../backends/embedded/storage-fs.ts';

/** The file operations segment files share. */

export async function unlinkIfPresent(fs: StorageFs, path: string): Promise<boolean> {
  try {
    await fs.unlink(path);
    return true;
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return false;
    throw err;
  }
}

/** Opens `path` for writing, empty: created, or cut to nothing when a crashed write left it behind. */
export async function openEmpty(fs: StorageFs, path: string): Promise<StorageHandle> {
  try {
    return await fs.open(path, 'wx', 0o600);
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') throw err;
    const handle = await fs.open(path, 'r+');
    await handle.truncate(0);
    return handle;
  }
}

/** `length` bytes at `position`, or null when the file ends before them. */
export async function readExactly(
  handle: StorageHandle,
  position: number,
  length: number,
): Promise<Uint8Array | null> {
  const buffer = new Uint8Array(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return bytesRead === length ? buffer : null;
}

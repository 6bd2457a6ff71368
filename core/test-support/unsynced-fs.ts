import { nodeStorageFs } from '../backends/embedded/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../backends/embedded/storage-fs.ts';

/**
 * The real file system with every fsync skipped, for tests that are not about durability: the
 * files, renames and locks are all real, only the wait for the disk is gone. Files asked for as
 * `r+durable` (the journal, the acknowledged mark) are opened plainly: O_DSYNC would make every
 * write wait for the disk, the very sync this layer skips. Passed as the vault's `fs` option,
 * which only code can set (no setting, flag or environment variable reaches it). Storage and
 * crash tests keep the real layer or the power-loss one.
 */
export const unsyncedFs: StorageFs = {
  ...nodeStorageFs,
  open: async (path, flags, mode) =>
    withoutSync(await nodeStorageFs.open(path, flags === 'r+durable' ? 'r+' : flags, mode)),
  syncDirectory: async () => undefined,
};

function withoutSync(handle: StorageHandle): StorageHandle {
  return {
    read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
    write: (buffer, offset, length, position) => handle.write(buffer, offset, length, position),
    readFile: () => handle.readFile(),
    truncate: (length) => handle.truncate(length),
    sync: async () => undefined,
    datasync: async () => undefined,
    stat: () => handle.stat(),
    close: () => handle.close(),
  };
}

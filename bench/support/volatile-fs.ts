/**
 * A diagnostic, never a configuration: the real file system with every sync a no-op and no
 * O_DSYNC, so a commit is acknowledged once its bytes are in the page cache. A bench server opened
 * with it (SVC_BENCH_VOLATILE_FS=1) measures how much of a figure is the wait for durable writes.
 */
import { nodeStorageFs } from '../../core/storage/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../../core/storage/storage-fs.ts';

function volatile(handle: StorageHandle): StorageHandle {
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

export const volatileFs: StorageFs = {
  ...nodeStorageFs,
  open: async (path, flags, mode) =>
    volatile(await nodeStorageFs.open(path, flags === 'r+durable' ? 'r+' : flags, mode)),
  syncDirectory: async () => undefined,
};

/** The file layer a bench server opens its vault with: `volatileFs` when SVC_BENCH_VOLATILE_FS=1. */
export function benchStorageFs(): { fs?: StorageFs } {
  return process.env.SVC_BENCH_VOLATILE_FS === '1' ? { fs: volatileFs } : {};
}

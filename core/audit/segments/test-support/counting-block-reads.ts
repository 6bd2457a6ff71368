import type { StorageFs } from '../../../backends/embedded/storage-fs.ts';
import { FRAME_HEAD_BYTES } from '../block-codec.ts';

/**
 * `fs` counting the reads of segment files longer than a frame head: the blocks read whole (an open
 * that trusts its index reads only the frame heads of the blocks it lists). Every method is
 * forwarded by hand, so a file layer whose methods live on its prototype works too.
 */
export function countingBlockReads(fs: StorageFs): { fs: StorageFs; whole: () => number } {
  let whole = 0;
  const counting: StorageFs = {
    rename: (from, to) => fs.rename(from, to),
    unlink: (file) => fs.unlink(file),
    link: (existing, to) => fs.link(existing, to),
    stat: (file) => fs.stat(file),
    readFile: (file) => fs.readFile(file),
    mkdir: (dir, mode) => fs.mkdir(dir, mode),
    syncDirectory: (dir) => fs.syncDirectory(dir),
    freeBytes: (dir) => fs.freeBytes(dir),
    open: async (file, flags, mode) => {
      const handle = await fs.open(file, flags, mode);
      if (!file.endsWith('.seg')) return handle;
      return {
        ...handle,
        read: (buffer, offset, length, position) => {
          if (length > FRAME_HEAD_BYTES) whole++;
          return handle.read(buffer, offset, length, position);
        },
      };
    },
  };
  return { fs: counting, whole: () => whole };
}

import type { StorageFs, StorageHandle } from '../storage-fs.ts';
import { nodeStorageFs } from '../storage-fs.ts';

/** Which operation on which path fails, and with which errno code (null: it succeeds). */
export type Fault = (op: 'write' | 'sync' | 'create', path: string) => string | null;

function errno(code: string, path: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: ${path}`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}

/**
 * The real file system with failures injected on demand (a full disk, an I/O error), for tests of
 * what the vault does when a write or fsync fails.
 */
export function faultyFs(
  fault: () => Fault | null,
  base: StorageFs = nodeStorageFs,
  /** What `freeBytes` reports instead of the real figure. */
  freeBytes?: () => number,
): StorageFs {
  const check = (op: 'write' | 'sync' | 'create', path: string) => {
    const code = fault()?.(op, path) ?? null;
    if (code) throw errno(code, path);
  };
  const wrap = (handle: StorageHandle, path: string): StorageHandle => ({
    read: (b, o, l, p) => handle.read(b, o, l, p),
    write: async (b, o, l, p) => {
      check('write', path);
      return handle.write(b, o, l, p);
    },
    readFile: () => handle.readFile(),
    truncate: async (length) => {
      check('write', path);
      await handle.truncate(length);
    },
    sync: async () => {
      check('sync', path);
      await handle.sync();
    },
    datasync: async () => {
      check('sync', path);
      await handle.datasync();
    },
    stat: () => handle.stat(),
    close: () => handle.close(),
  });
  return {
    ...base,
    freeBytes: freeBytes ? () => Promise.resolve(freeBytes()) : (dir) => base.freeBytes(dir),
    open: async (path, flags, mode) => {
      if (flags === 'wx') check('create', path);
      return wrap(await base.open(path, flags, mode), path);
    },
    link: async (existing, to) => {
      check('create', to);
      await base.link(existing, to);
    },
  };
}

import { constants, write } from 'node:fs';
import { link, mkdir, open, readFile, rename, stat, statfs, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * The file operations the storage engine uses, and nothing more. Production uses the real file
 * system; tests pass a layer that simulates power loss (it keeps only what was synced), so a
 * missing fsync shows up as lost data instead of hiding in the page cache.
 */
export interface StorageFileStat {
  readonly size: number;
  readonly ino: number;
}

export interface StorageHandle {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  write(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesWritten: number }>;
  readFile(): Promise<Buffer>;
  truncate(length: number): Promise<void>;
  /** Data and metadata reach the disk. */
  sync(): Promise<void>;
  /** Data (and the size) reach the disk. */
  datasync(): Promise<void>;
  stat(): Promise<StorageFileStat>;
  close(): Promise<void>;
}

/**
 * `r` read, `r+` read/write an existing file, `wx` create a new file (EEXIST if it exists),
 * `r+durable` read/write an existing file whose writes are durable when they return (O_DSYNC), so
 * that a `datasync` after them has nothing left to do: the write and its fdatasync cost one trip
 * to the I/O thread pool instead of two.
 */
export type OpenFlags = 'r' | 'r+' | 'r+durable' | 'wx';

export interface StorageFs {
  open(path: string, flags: OpenFlags, mode?: number): Promise<StorageHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Hard link: creates `to` atomically, failing with EEXIST when it exists. */
  link(existing: string, to: string): Promise<void>;
  stat(path: string): Promise<StorageFileStat>;
  readFile(path: string): Promise<Buffer>;
  mkdir(path: string, mode: number): Promise<void>;
  /** fsyncs a directory so that a create, rename or unlink inside it survives a power loss. */
  syncDirectory(dir: string): Promise<void>;
  /** Bytes an unprivileged writer may still use on the file system holding `dir`. */
  freeBytes(dir: string): Promise<number>;
}

/**
 * A handle opened with O_DSYNC: every completed write already reached the disk as an fdatasync
 * would have made it, so `datasync` only runs one when a truncate (which O_DSYNC does not cover)
 * came since the last sync. Without O_DSYNC (Windows) the handle is a plain one.
 */
async function openDurable(path: string): Promise<StorageHandle> {
  if (constants.O_DSYNC === undefined) return open(path, 'r+');
  const handle: FileHandle = await open(path, constants.O_RDWR | constants.O_DSYNC);
  let truncated = false;
  return {
    read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
    write: (buffer, offset, length, position) => writeByCallback(handle.fd, buffer, offset, length, position),
    readFile: () => handle.readFile(),
    truncate: async (length) => {
      truncated = true;
      await handle.truncate(length);
    },
    sync: async () => {
      truncated = false;
      await handle.sync();
    },
    datasync: async () => {
      if (!truncated) return;
      truncated = false;
      await handle.datasync();
    },
    stat: () => handle.stat(),
    close: () => handle.close(),
  };
}

/**
 * The same `write(2)` on the I/O pool as `FileHandle.write`, through the callback API: it skips
 * the promise API's per-call wrapping, and this write runs twice on every commit.
 */
function writeByCallback(
  fd: number,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number,
): Promise<{ bytesWritten: number }> {
  return new Promise((resolve, reject) => {
    write(fd, buffer, offset, length, position, (err, bytesWritten) => {
      if (err) reject(err);
      else resolve({ bytesWritten });
    });
  });
}

export const nodeStorageFs: StorageFs = {
  open: (path, flags, mode) => (flags === 'r+durable' ? openDurable(path) : open(path, flags, mode)),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  link: (existing, to) => link(existing, to),
  stat: (path) => stat(path),
  readFile: (path) => readFile(path),
  mkdir: async (path, mode) => {
    await mkdir(path, { recursive: true, mode });
  },
  freeBytes: async (dir) => {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  },
  syncDirectory: async (dir) => {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

export function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** True when a file operation failed because the disk (or the user's quota) is full. */
export function isDiskFull(err: unknown): boolean {
  return errnoOf(err) === 'ENOSPC' || errnoOf(err) === 'EDQUOT';
}

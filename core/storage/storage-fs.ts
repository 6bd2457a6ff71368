import { link, mkdir, open, readFile, rename, stat, statfs, unlink } from 'node:fs/promises';

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

/** `r` read, `r+` read/write an existing file, `wx` create a new file (EEXIST if it exists). */
export type OpenFlags = 'r' | 'r+' | 'wx';

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

export const nodeStorageFs: StorageFs = {
  open: (path, flags, mode) => open(path, flags, mode),
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

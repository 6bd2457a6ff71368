import { randomBytes } from 'node:crypto';
import { dirname, basename, join } from 'node:path';
import { nodeStorageFs } from './storage-fs.ts';
import type { StorageFs, StorageHandle } from './storage-fs.ts';

/** fsyncs a directory so that a rename or unlink inside it survives a power loss. */
export async function syncDirectory(dir: string, fs: StorageFs = nodeStorageFs): Promise<void> {
  await fs.syncDirectory(dir);
}

/** A unique temp name beside `target`, hidden, so a crash leaves only recognisable debris. */
export function tempPathBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Writes a file atomically: a temp file beside the target is filled by `write`, fsynced, renamed
 * over the target, and the directory is fsynced. A crash leaves either the old or the new file.
 */
export async function writeFileAtomically(
  target: string,
  write: (handle: StorageHandle) => Promise<void>,
  mode = 0o600,
  fs: StorageFs = nodeStorageFs,
): Promise<void> {
  const temp = tempPathBeside(target);
  const handle = await fs.open(temp, 'wx', mode);
  try {
    await write(handle);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.unlink(temp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(temp, target);
  } catch (err) {
    await fs.unlink(temp).catch(() => undefined);
    throw err;
  }
  await fs.syncDirectory(dirname(target));
}

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeFully(handle: StorageHandle, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}

/** Reads exactly `length` bytes at `position`, or fewer if the file ends first. */
export async function readAt(handle: StorageHandle, position: number, length: number): Promise<Buffer> {
  return readInto(handle, Buffer.alloc(length), position, length);
}

/**
 * Reads `length` bytes at `position` into the start of `buffer` (at least that long), for a
 * reader that reuses one buffer; returns the part read, shorter if the file ends first.
 */
export async function readInto(
  handle: StorageHandle,
  buffer: Buffer,
  position: number,
  length: number,
): Promise<Buffer> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}

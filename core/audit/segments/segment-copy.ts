import { cp, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Database as SqlJsDatabase } from 'sql.js';
import { syncDirectory, writeFully } from '../../backends/embedded/durable-fs.ts';
import { segmentFileName } from './segment-files.ts';
import type { SegmentRecord } from './segment-files.ts';

/** The segments a database image names (none before the migration that made the table). */
export function segmentRecordsOf(sqlite: SqlJsDatabase): SegmentRecord[] {
  try {
    const rows = sqlite.exec('SELECT segment, generation, committed_bytes, rolled FROM audit_segments');
    return (rows[0]?.values ?? []).map(([segment, generation, committed, rolled]) => ({
      segment: Number(segment),
      generation: Number(generation),
      committed_bytes: Number(committed),
      rolled: Number(rolled),
    }));
  } catch {
    return [];
  }
}

async function copyPrefix(from: string, to: string, length: number): Promise<void> {
  const source = await open(from, 'r');
  try {
    const target = await open(to, 'w', 0o600);
    try {
      const chunk = Buffer.alloc(4 * 1024 * 1024);
      for (let position = 0; position < length;) {
        const { bytesRead } = await source.read(
          chunk,
          0,
          Math.min(chunk.length, length - position),
          position,
        );
        if (bytesRead === 0) break;
        await writeFully(target, chunk.subarray(0, bytesRead), position);
        position += bytesRead;
      }
      await target.sync();
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/**
 * Copies the committed part of each segment an image names (and its index file: a rolled segment's,
 * or the open one's) from one segments folder to a new one (a backup beside its file). Blocks are bound to the vault id and
 * their place in a segment, not to a path, so the copy opens where it lands. Throws ENOENT when a
 * file was replaced meanwhile (a retention rewrite): the caller reads the state again.
 */
export async function copyCommittedSegments(
  fromDir: string,
  toDir: string,
  records: readonly SegmentRecord[],
): Promise<void> {
  await rm(toDir, { recursive: true, force: true });
  const live = records.filter((r) => r.committed_bytes > 0);
  if (live.length === 0) return;
  await mkdir(toDir, { recursive: true, mode: 0o700 });
  for (const r of live) {
    const seg = segmentFileName(r.segment, r.generation, 'seg');
    await copyPrefix(join(fromDir, seg), join(toDir, seg), r.committed_bytes);
    // Rebuilt from the blocks if missing. An open index may list blocks past the copied length
    // (appended since the image was taken): opening the copy leaves them out.
    const idx = segmentFileName(r.segment, r.generation, r.rolled === 1 ? 'idx' : 'oidx');
    await cp(join(fromDir, idx), join(toDir, idx)).catch(() => undefined);
  }
  await syncDirectory(toDir);
  await syncDirectory(dirname(toDir));
}

/**
 * Installs a copied segments folder as a vault's (restore, import), replacing the folder of the
 * vault being replaced; without one, that old folder is removed.
 */
export async function installSegments(fromDir: string, toDir: string): Promise<void> {
  const staging = `${toDir}.restoring`;
  await rm(staging, { recursive: true, force: true });
  let copied = true;
  await cp(fromDir, staging, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    copied = false;
  });
  await rm(toDir, { recursive: true, force: true });
  if (copied) {
    await syncDirectory(staging);
    await rename(staging, toDir);
  }
  await syncDirectory(dirname(toDir));
}

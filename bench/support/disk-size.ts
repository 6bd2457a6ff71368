import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Bytes on disk (apparent sizes) of the entries of `dir` whose names start with `prefix` (every
 * entry when it is empty), folders counted with everything in them. A vault's size is its folder:
 * the vault file, its journal and acknowledged mark, and any folder of files beside them, whatever
 * it is named. Entries removed while they are counted (a journal segment a snapshot replaced) count
 * as gone.
 */
export async function diskBytes(dir: string, prefix = ''): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isGone(error)) return 0;
    throw error;
  }
  let total = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dir, name);
    try {
      const stat = await lstat(path);
      total += stat.isDirectory() ? await diskBytes(path) : stat.size;
    } catch (error) {
      if (!isGone(error)) throw error;
    }
  }
  return total;
}

function isGone(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

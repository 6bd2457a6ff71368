import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The bytes on disk of every file of the embedded vault at `vaultPath`: the vault file and
 * everything beside it named after it (journal, acknowledged-commit mark, lock, and any folder of
 * the vault's such as its audit segments), so a measure of growth keeps counting all of it wherever
 * the vault keeps its data.
 */
export async function vaultFileBytes(vaultPath: string): Promise<number> {
  const dir = dirname(vaultPath);
  const name = basename(vaultPath);
  const stem = name.endsWith('.svc') ? name.slice(0, -'.svc'.length) : name;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  let total = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const top = path.slice(dir.length + 1).split(/[\\/]/)[0] ?? '';
    if (top === name || top.startsWith(`${stem}.`)) total += (await stat(path)).size;
  }
  return total;
}

// Finds the compiled CLI (`npm run build` → dist/cli/main.js) when it is at least as new as every
// TypeScript source it was built from. A stale build is never run: after an edit without a rebuild
// the launcher falls back to the sources through tsx, so what runs is always what is on disk.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
/** The folders tsconfig.build.json compiles that the CLI imports. */
const SOURCE_DIRS = ['core', 'server', 'cli'];
const BIN_DIR = path.join(repo, 'cli', 'bin');

/** Newest modification time (ms) of the .ts/.js/.json files under `dir`, 0 for a folder that is not there. */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // cli/bin holds these launchers, which are not compiled.
      if (entry.name !== 'node_modules' && full !== BIN_DIR) newest = Math.max(newest, newestSource(full));
    } else if (/\.(ts|js|json)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) {
      newest = Math.max(newest, statSync(full).mtimeMs);
    }
  }
  return newest;
}

/** The file URL of the compiled entry point, or undefined when there is none or it is stale. */
export function compiledMain() {
  const main = path.join(repo, 'dist', 'cli', 'main.js');
  let built;
  try {
    built = statSync(main).mtimeMs;
  } catch {
    return undefined;
  }
  const sources = Math.max(
    statSync(path.join(repo, 'package.json')).mtimeMs,
    ...SOURCE_DIRS.map((dir) => newestSource(path.join(repo, dir))),
  );
  return sources <= built ? pathToFileURL(main) : undefined;
}

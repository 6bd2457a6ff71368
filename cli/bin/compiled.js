// Finds the bundled CLI (`npm run build` → dist/svc/main.js, see scripts/build-cli.ts) while it is
// current. The build lists every source file it read in dist/svc/manifest.json with its mtime and
// size; the bundle runs only while each of those files is still there, unchanged. After an edit
// without a rebuild the launcher falls back to the sources through tsx, so what runs is always what
// is on disk. (A new file matters only once an existing source imports it, and that edit shows.)
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const BUNDLE_DIR = path.join(repo, 'dist', 'svc');

/** Whether `file` (relative to the repository) still has the recorded mtime and size. */
function unchanged(file, [mtimeMs, size]) {
  const info = statSync(path.join(repo, file), { throwIfNoEntry: false });
  return info !== undefined && info.mtimeMs === mtimeMs && info.size === size;
}

/** The file URL of the bundle's entry point, or undefined when there is none or it is stale. */
export function compiledMain() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(BUNDLE_DIR, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
  for (const [file, recorded] of Object.entries(manifest.inputs)) {
    if (!unchanged(file, recorded)) return undefined;
  }
  return pathToFileURL(path.join(BUNDLE_DIR, manifest.main));
}

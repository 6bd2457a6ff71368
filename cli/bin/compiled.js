// Finds the bundled CLI (`npm run build` → dist/svc/main.js, see scripts/build-cli.ts) while it is
// current. The build lists every file it read in dist/svc/manifest.json with its mtime and size
// (a bundled package by its package.json); the bundle runs only while each of those files is still
// there, unchanged. After an edit without a rebuild the launcher falls back to the sources through
// tsx, so what runs is always what is on disk. A new source file matters only once an existing one
// imports it, and that edit shows. Stating the listed files costs a few milliseconds.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The file URL of the bundle's entry point, or undefined when there is none or it is stale. */
export function compiledMain(repo = REPO) {
  const bundle = path.join(repo, 'dist', 'svc');
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(bundle, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
  for (const [file, [mtimeMs, size]] of Object.entries(manifest.inputs)) {
    const info = statSync(path.join(repo, file), { throwIfNoEntry: false });
    if (info === undefined || info.mtimeMs !== mtimeMs || info.size !== size) return undefined;
  }
  return pathToFileURL(path.join(bundle, manifest.main));
}

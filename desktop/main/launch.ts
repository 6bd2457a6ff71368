/**
 * `npm run desktop`: makes sure Electron's binary is there, then starts the app. `npm ci` runs no
 * install scripts (ignore-scripts), so the `electron` package arrives without its binary; the
 * package's own installer fetches it on first use.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the electron package keeps its binary, or null when it was never fetched. */
export function electronBinary(packageDir: string): string | null {
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

export const FETCH_FAILED =
  "Electron's binary could not be downloaded (see the installer's message above). The desktop app " +
  'needs it; the CLI and server do not (`npm start`). Check the network or set ELECTRON_MIRROR / ' +
  'electron_config_cache to a reachable mirror or cache, then run `npm run desktop` again.';

export function ensureElectronBinary(packageDir: string, log: (line: string) => void): string | null {
  const present = electronBinary(packageDir);
  if (present !== null) return present;
  log("Fetching Electron's binary (first run; npm ci installs no binaries)…");
  const result = spawnSync(process.execPath, [join(packageDir, 'install.js')], { stdio: 'inherit' });
  const fetched = result.status === 0 ? electronBinary(packageDir) : null;
  if (fetched === null) log(FETCH_FAILED);
  return fetched;
}

function run(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  const binary = ensureElectronBinary(packageDir, (line) => process.stderr.write(`${line}\n`));
  if (binary === null) {
    process.exitCode = 1;
    return;
  }
  const child = spawn(binary, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => {
    process.exitCode = code ?? 1;
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) run();

/**
 * What the console's build is made of, as one digest: its sources, the typed client it imports and
 * the lockfile. `npm run build:console` records the digest of the sources it built from beside the
 * build (desktop/renderer/dist/.inputs-digest, run as a script after `vite build`); the browser
 * tests serve that build when the digest still matches, instead of building the console again.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CONSOLE_INPUTS = ['desktop/renderer', 'client', 'package-lock.json'];
/** The console's build, as `npm run build:console` writes it. */
export const CONSOLE_BUILD = join(REPO, 'desktop', 'renderer', 'dist');
/** The file in a build naming the digest of the inputs it was built from. */
export const DIGEST_FILE = '.inputs-digest';

/** A digest of every input file's path and bytes (build outputs and node_modules left out). */
export async function consoleInputsDigest(): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (relative: string): Promise<void> => {
    const path = join(REPO, relative);
    if ((await stat(path)).isDirectory()) {
      for (const entry of (await readdir(path)).sort()) {
        if (entry === 'dist' || entry === 'node_modules') continue;
        await visit(join(relative, entry));
      }
      return;
    }
    hash
      .update(`${relative}\0`)
      .update(await readFile(path))
      .update('\0');
  };
  for (const input of CONSOLE_INPUTS) await visit(input);
  return hash.digest('hex').slice(0, 16);
}

/** The digest `build` was made from, or undefined when it records none. */
export async function recordedDigest(build: string): Promise<string | undefined> {
  return readFile(join(build, DIGEST_FILE), 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(join(CONSOLE_BUILD, DIGEST_FILE), `${await consoleInputsDigest()}\n`);
}

/**
 * Vitest global setup: makes sure the `svc` processes the tests start (e2e/support.ts,
 * cli/bin/svc.test.ts) run the bundled CLI, as they do after `npm run build`. Without a current
 * bundle the launcher falls back to the TypeScript sources through tsx, which costs several times
 * the bundle's CPU per command and more per server, for the same code (`bench/cli.ts` runs both).
 * The bundle is rebuilt only when a source it was built from changed (cli/bin/compiled.js decides,
 * as it does for the launcher).
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { compiledMain } from '../bin/compiled.js';
import { BUNDLE_DIR, buildCli } from '../../scripts/build-cli.ts';

/** A lock older than this was left by a run that died: the next run builds anyway. */
const STALE_LOCK_MS = 10 * 60_000;

export default async function setup(): Promise<void> {
  if (compiledMain() !== undefined) return;
  const lock = path.join(path.dirname(BUNDLE_DIR), 'svc.building');
  await mkdir(path.dirname(BUNDLE_DIR), { recursive: true });
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const held = await stat(lock).catch(() => null);
    // Another run is building it: the launcher uses the sources until its manifest is written.
    if (held !== null && Date.now() - held.mtimeMs < STALE_LOCK_MS) return;
  }
  try {
    await buildCli();
  } catch (error) {
    // The tests still run, on the sources; a source that does not compile fails them there.
    console.warn(
      `The svc bundle was not built (${String(error)}): the CLI tests run the sources through tsx.`,
    );
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

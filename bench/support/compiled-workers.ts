/**
 * Worker threads (snapshot builds, the sandbox) started by the bench servers run from entries
 * compiled once per run, as they run from built JavaScript for a user, instead of booting the
 * TypeScript loader inside each new thread: that boot costs about a second of CPU per thread and an
 * esbuild process at normal priority beside a background snapshot, which the stall figures would
 * otherwise count. The folder is named in SVC_TEST_COMPILED_WORKERS, which every bench server
 * inherits (startWorker reads it on its TypeScript path only), and removed when this process exits.
 */
import { rmSync } from 'node:fs';
import { compileWorkers } from '../../core/test-support/compiled-script.ts';

export async function useCompiledWorkers(): Promise<void> {
  if (process.env.SVC_TEST_COMPILED_WORKERS !== undefined) return;
  const workers = await compileWorkers();
  process.env.SVC_TEST_COMPILED_WORKERS = workers.dir;
  process.once('exit', () => rmSync(workers.dir, { recursive: true, force: true }));
}

/**
 * Vitest global setup: compiles the worker threads' entries once per run and names their folder in
 * SVC_TEST_COMPILED_WORKERS, which startWorker reads when it runs from TypeScript sources. A worker
 * started from the sources boots the TypeScript loader inside the thread first, about a second of
 * CPU for every sandbox or snapshot worker, and a run starts hundreds of them (a sandbox pool per
 * test server). The compiled entries are the same modules; only tests set the variable.
 */
import { compileWorkers } from './compiled-script.ts';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // Vitest runs a global setup once for the root and once for each project, in one process.
  if (process.env.SVC_TEST_COMPILED_WORKERS !== undefined) return undefined;
  const workers = await compileWorkers();
  process.env.SVC_TEST_COMPILED_WORKERS = workers.dir;
  return async () => {
    delete process.env.SVC_TEST_COMPILED_WORKERS;
    await workers.remove();
  };
}

/**
 * Starts our own worker threads the same way from TypeScript sources (tsx, vitest) and from built
 * JavaScript (tsc's dist/, the CLI bundle, a test's compiled script).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

/**
 * The worker entry points, by the name their built file has beside the module that starts them.
 * A bundle (scripts/build-cli.ts, core/test-support/compiled-script.ts) builds each as an entry of
 * its own into the folder of its other chunks, so `startWorker` finds it there.
 */
export const WORKER_ENTRIES = {
  worker: 'core/sandbox/worker.ts',
  'snapshot-worker': 'core/backends/embedded/snapshot-worker.ts',
} as const;

export type WorkerEntry = keyof typeof WORKER_ENTRIES;

/**
 * A new worker thread running the entry `name` that sits beside the module at `callerUrl` (its
 * `import.meta.url`), with that module's own extension. Under tsx or vitest the caller is
 * TypeScript, and Node 20 does not pass loader hooks to workers: a small bootstrap registers tsx's
 * ESM hooks inside the worker first (tsx is a runtime dependency). A test or bench run names a
 * folder of the entries compiled in advance (SVC_TEST_COMPILED_WORKERS, set by
 * core/test-support/compiled-workers-setup.ts and bench/support/compiled-workers.ts) and skips that
 * boot; built JavaScript never reads it.
 */
export function startWorker(callerUrl: string, name: WorkerEntry, options: WorkerOptions = {}): Worker {
  const extension = extname(new URL(callerUrl).pathname);
  const target = new URL(`./${name}${extension}`, callerUrl);
  if (extension !== '.ts') return new Worker(target, options);
  const compiled = process.env.SVC_TEST_COMPILED_WORKERS;
  if (compiled !== undefined && compiled !== '')
    return new Worker(join(compiled, `${name}.mjs`), compiledEntryOptions(options));
  return startTypeScriptWorker(callerUrl, target, options);
}

/**
 * A compiled entry is plain JavaScript, started as from a user's build: without the Node options
 * of a parent run through the TypeScript loader (`--import tsx`), which a worker thread inherits
 * by default and would boot in every new thread at normal priority, before the entry runs.
 */
export function compiledEntryOptions(options: WorkerOptions): WorkerOptions {
  return { execArgv: [], ...options };
}

/**
 * A new worker thread running the TypeScript module `target`: a small bootstrap registers tsx's
 * ESM hooks inside the worker (Node 20 does not pass loader hooks to workers), then imports it.
 */
export function startTypeScriptWorker(callerUrl: string, target: URL, options: WorkerOptions = {}): Worker {
  const packageJson = createRequire(callerUrl).resolve('tsx/package.json');
  const exportsMap = (JSON.parse(readFileSync(packageJson, 'utf8')) as TsxPackage).exports;
  const api = pathToFileURL(join(dirname(packageJson), exportsMap['./esm/api'].import.default)).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(target.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

interface TsxPackage {
  readonly exports: { readonly './esm/api': { readonly import: { readonly default: string } } };
}

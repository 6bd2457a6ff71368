/**
 * CPU of starting sandbox-like worker threads that load QuickJS and run a little code, with each
 * worker compiling QuickJS's WebAssembly itself (`own`) or instantiating the module the host
 * compiled once (`shared`, what core/sandbox/quickjs-wasm.ts does):
 * `node --import tsx bench/quickjs-start.ts [workers]` (default 6). Workers start one after another
 * and each lives 400 ms (time for V8 to optimize its hot wasm functions in the background, as a
 * real worker would); one JSON line per mode with the process's CPU seconds. Not part of `npm run bench`.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { compiledQuickJs } from '../core/sandbox/quickjs-wasm.ts';
import { emit } from './json-lines.ts';

/**
 * The worker, plain JavaScript (a worker thread does not get the TypeScript loader): loads QuickJS
 * from the compiled module when given one, runs a little code, reports.
 */
const QUICKJS = pathToFileURL(createRequire(import.meta.url).resolve('quickjs-emscripten')).href;
const WORKER = `
import { parentPort, workerData } from 'node:worker_threads';
const { RELEASE_SYNC, newQuickJSWASMModuleFromVariant, newVariant } = await import(${JSON.stringify(QUICKJS)});
const module = workerData.module;
const quickJs = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, module === undefined ? {} : { wasmModule: module }));
const context = quickJs.newContext();
for (let k = 0; k < 20; k += 1) context.unwrapResult(context.evalCode('(() => { let s = 0; for (let i = 0; i < 10000; i++) s += i; return s })()')).dispose();
context.dispose();
parentPort.postMessage('ready');
`;

{
  const workers = Number(process.argv[2] ?? 6);
  for (const mode of ['own', 'shared'] as const) {
    const before = process.cpuUsage();
    const module = mode === 'shared' ? await compiledQuickJs() : undefined;
    for (let i = 0; i < workers; i += 1) {
      const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`), {
        workerData: { module },
      });
      await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      await sleep(400);
      await worker.terminate();
    }
    const used = process.cpuUsage(before);
    emit({
      bench: 'quickjs-start',
      metric: 'cpu_for_worker_starts',
      value: Math.round((used.user + used.system) / 1000) / 1000,
      unit: 's',
      mode,
      workers,
    });
  }
}

/**
 * QuickJS's WebAssembly, compiled once per process and handed to every sandbox worker thread.
 *
 * A compiled `WebAssembly.Module` passed to a worker shares its machine code, optimized functions
 * included, so a worker started later (the pool growing, or replacing one stopped at its deadline)
 * does not compile QuickJS again, which was most of the CPU of a worker's start, its first run and
 * the background optimizing of hot functions (bench/quickjs-start.ts compares the two). A hostile
 * formula that runs to its deadline no longer costs the vault a recompilation each time.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The `.wasm` file of the release variant the engine loads, found the way quickjs-emscripten finds it. */
function wasmPath(): string {
  const fromOurs = createRequire(import.meta.url);
  const fromQuickJs = createRequire(fromOurs.resolve('quickjs-emscripten/package.json'));
  return fromQuickJs.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
}

/** The WebAssembly namespace's functions used here (the Node typings in use declare no value for it). */
const wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly;

let compiled: Promise<WebAssembly.Module | undefined> | undefined;

/**
 * The process's compiled QuickJS, compiled on first call (asynchronously: compilation runs on V8's
 * background threads, not on the event loop). Undefined when the file cannot be read or compiled:
 * each worker then compiles its own from the package, as it would without this, and a real problem
 * with the file surfaces there, as a failed run.
 */
export function compiledQuickJs(): Promise<WebAssembly.Module | undefined> {
  compiled ??= readFile(wasmPath()).then(
    (bytes) => wasm.compile(bytes).catch(() => undefined),
    () => undefined,
  );
  return compiled;
}

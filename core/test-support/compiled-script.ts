import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WORKER_ENTRIES } from '../threads/start-worker.ts';

/** A test's child-process script compiled to plain JavaScript, and how to remove it. */
export interface CompiledScript {
  readonly path: string;
  /** What to start `node` with: the Node options it was compiled for, then `path`. */
  readonly args: readonly string[];
  remove(): Promise<void>;
}

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** How much of a child script `compileScript` bundles. */
export interface CompileOptions {
  /**
   * Bundle the packages it imports too, for a script started many times: one file to parse instead
   * of resolving and loading each package's modules (kysely alone is hundreds), a large share of
   * each process start's CPU. sql.js stays a package: core/backends/embedded/sqljs.ts reads its source and its
   * wasm file from the package's folder.
   */
  readonly bundlePackages?: boolean;
  /**
   * Compile it as CommonJS and start it through a launcher that hands V8 the code it compiled in a
   * first run (a code cache made once here, by a run that only loads the script), for a script
   * started many times: each start then skips parsing and compiling the bundle. The script must
   * not await at its top level, nor read its inputs before it is run (the first run has none).
   */
  readonly codeCache?: boolean;
  /**
   * Node options every start uses (`args`). V8 refuses a code cache made under other flags, so
   * the run that makes it uses them too.
   */
  readonly nodeOptions?: readonly string[];
}

/**
 * Compiles a TypeScript child script once, so that tests spawning it many times start plain
 * `node` instead of the TypeScript loader each time. The output lives under node_modules so that
 * its package imports resolve as the sources' do; our own modules are bundled in. The worker
 * threads' entries are compiled beside it, where the modules that start them look for them.
 */
export async function compileScript(source: URL, options: CompileOptions = {}): Promise<CompiledScript> {
  const sourcePath = fileURLToPath(source);
  const name = basename(sourcePath, '.ts');
  const bundlePackages = options.bundlePackages === true;
  const nodeOptions = options.nodeOptions ?? [];
  const dir = await compileEntries(name, options.codeCache ? {} : { [name]: sourcePath }, bundlePackages);
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  if (!options.codeCache) {
    const path = join(dir, `${name}.mjs`);
    return { path, args: [...nodeOptions, path], remove };
  }
  await build({
    ...bundleOptions(bundlePackages, 'cjs'),
    entryPoints: { [name]: sourcePath },
    outdir: dir,
    outExtension: { '.js': '.cjs' },
    // The bundled modules resolve their packages and find the worker entries (`${name}.mjs`
    // beside it, see core/threads/start-worker.ts) from their `import.meta.url`: the same folder.
    define: { 'import.meta.url': '__svcImportMetaUrl' },
    banner: {
      js: `const __svcImportMetaUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(`${name}.mjs`)})).href;`,
    },
  });
  const path = join(dir, `${name}.launch.cjs`);
  await writeFile(path, launcherSource(`${name}.cjs`));
  await makeCodeCache(path, nodeOptions);
  return { path, args: [...nodeOptions, path], remove };
}

/** The environment variable that asks a launcher to write the code cache and exit. */
const MAKE_CODE_CACHE = 'SVC_TEST_MAKE_CODE_CACHE';

/**
 * A CommonJS launcher of the bundle `file` beside it: compiles it as Node would a CommonJS module,
 * with the code cache `${file}.v8cache` when there is one; with MAKE_CODE_CACHE set, writes that
 * cache once the bundle has loaded and exits. Its source is read as Latin-1: esbuild writes ASCII.
 */
function launcherSource(file: string): string {
  return `'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');
const filename = join(__dirname, ${JSON.stringify(file)});
const cacheFile = filename + '.v8cache';
const making = process.env.${MAKE_CODE_CACHE} === '1';
delete process.env.${MAKE_CODE_CACHE};
let cachedData;
if (!making) cachedData = readFileSync(cacheFile);
const script = new Script(
  '(function (exports, require, module, __filename, __dirname) {' + readFileSync(filename, 'latin1') + '\\n})',
  { filename, cachedData },
);
if (!making && script.cachedDataRejected) throw new Error('V8 rejected the code cache of ' + filename);
const m = { exports: {} };
script.runInThisContext()(m.exports, require, m, filename, __dirname);
if (making) {
  writeFileSync(cacheFile, script.createCachedData());
  process.exit(0);
}
`;
}

/** Runs the launcher at `path` once to write its code cache, under the Node options of every start. */
function makeCodeCache(path: string, nodeOptions: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, path], {
      env: { ...process.env, [MAKE_CODE_CACHE]: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`making the code cache failed (${code}): ${stderr}`)),
    );
  });
}

/**
 * The worker threads' entries compiled to plain JavaScript, for a test run to start instead of
 * booting the TypeScript loader inside every new worker (see compiled-workers-setup.ts).
 */
export async function compileWorkers(): Promise<{ readonly dir: string; remove(): Promise<void> }> {
  const dir = await compileEntries('workers', {});
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Bundles `entries` and the worker threads' entries into a new folder under node_modules. */
async function compileEntries(
  label: string,
  entries: Record<string, string>,
  bundlePackages = false,
): Promise<string> {
  const dir = join(repo, 'node_modules', '.cache', 'svc-tests', `${label}-${process.pid}-${Date.now()}`);
  const workers = Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([k, v]) => [k, join(repo, v)]));
  await build({
    ...bundleOptions(bundlePackages, 'esm'),
    entryPoints: { ...entries, ...workers },
    outdir: dir,
    // Outside any package scope with "type": "module": the extension marks the files as ES modules.
    outExtension: { '.js': '.mjs' },
    ...(bundlePackages
      ? {
          // The bundled CommonJS packages require Node's own modules; an ES module has no `require`.
          banner: {
            js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
          },
        }
      : {}),
  });
  return dir;
}

/** What every bundle here shares: the oldest Node the project supports (22), packages bundled or left external. */
function bundleOptions(bundlePackages: boolean, format: 'esm' | 'cjs') {
  return {
    bundle: true,
    ...(bundlePackages ? { external: ['sql.js'] } : { packages: 'external' as const }),
    platform: 'node' as const,
    format,
    target: 'node22',
    logLevel: 'silent' as const,
  };
}

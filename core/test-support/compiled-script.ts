import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WORKER_ENTRIES } from '../threads/start-worker.ts';

/** A test's child-process script compiled to plain JavaScript, and how to remove it. */
export interface CompiledScript {
  readonly path: string;
  remove(): Promise<void>;
}

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** How much of a child script `compileScript` bundles. */
export interface CompileOptions {
  /**
   * Bundle the packages it imports too, for a script started many times: one file to parse
   * instead of resolving and loading each package's modules (kysely alone is hundreds), ≈ 0.2 s
   * of CPU per process start. sql.js stays a package: core/vault/sqljs.ts reads its source and
   * its wasm file from the package's folder.
   */
  readonly bundlePackages?: boolean;
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
  const dir = await compileEntries(name, { [name]: sourcePath }, options.bundlePackages === true);
  return { path: join(dir, `${name}.mjs`), remove: () => rm(dir, { recursive: true, force: true }) };
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
    entryPoints: { ...entries, ...workers },
    outdir: dir,
    // Outside any package scope with "type": "module": the extension marks the files as ES modules.
    outExtension: { '.js': '.mjs' },
    bundle: true,
    ...(bundlePackages
      ? {
          external: ['sql.js'],
          // The bundled CommonJS packages require Node's own modules; an ES module has no `require`.
          banner: {
            js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
          },
        }
      : { packages: 'external' as const }),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  return dir;
}

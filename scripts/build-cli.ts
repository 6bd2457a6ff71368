/**
 * Bundles the `svc` CLI (part of `npm run build`) into dist/svc/: one ES module per entry point plus
 * shared chunks, so a command loads a handful of files instead of hundreds. Each verb's module is a
 * separate chunk (cli/program/command-index.ts imports them with `import()`), so `svc --help` and
 * `svc vault status` never load the server. Writes dist/svc/manifest.json, which cli/bin/compiled.js
 * reads to run the bundle only while every source it was built from is unchanged.
 *
 * Dependencies stay in node_modules (imported at run time), except the pure-JavaScript ones listed
 * in BUNDLED: those that ship WebAssembly, worker files or native fallbacks locate their files
 * relative to their own module and must be loaded from where npm put them (LOADED_FROM_NODE_MODULES
 * names those that a bundled package imports).
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { WORKER_ENTRIES } from '../core/threads/start-worker.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
export const BUNDLE_DIR = path.join(repo, 'dist', 'svc');

/**
 * Packages bundled into the CLI, with what they import: plain JavaScript that locates no file at run
 * time. Loading one bundled chunk beats resolving and reading a package's many files (and CommonJS
 * modules) one by one: the server's packages (Fastify and its compilers, TypeBox, the expression
 * engines) cost a `svc serve` ≈ 0.6 s of CPU at each start when loaded from node_modules.
 * (@fastify/swagger reads its own package.json only for an `info` the server always gives.)
 */
const BUNDLED = new Set([
  'commander',
  'openapi-fetch',
  'kysely',
  'picocolors',
  'cli-table3',
  'cli-progress',
  'fastify',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  '@fastify/swagger',
  '@fastify/type-provider-typebox',
  'typebox',
  'liquidjs',
  'jsep',
  '@jsep-plugin/assignment',
  '@jsep-plugin/regex',
  'jsonpath-plus',
  'lucene',
  'leven',
  'ms',
]);

/**
 * Packages a bundled package imports that stay in node_modules all the same: pino starts its
 * transports' worker threads from files beside its own module.
 */
const LOADED_FROM_NODE_MODULES = new Set(['pino', 'thread-stream']);

/** The package name of a bare import specifier (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** `node_modules/a/node_modules/@s/b/lib/x.js` → `node_modules/a/node_modules/@s/b/package.json`. */
export function packageJsonOf(input: string): string {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  const length = parts[at + 1]?.startsWith('@') === true ? at + 3 : at + 2;
  return [...parts.slice(0, length), 'package.json'].join('/');
}

/**
 * Keeps a bare import of our own sources that is not in BUNDLED as an import of node_modules at run
 * time; what a bundled package imports is bundled with it, except LOADED_FROM_NODE_MODULES.
 */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return undefined;
      const name = packageOf(args.path);
      if (LOADED_FROM_NODE_MODULES.has(name)) return { path: args.path, external: true };
      if (args.importer.includes('/node_modules/') || BUNDLED.has(name)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

export interface CliManifest {
  /** The bundle's entry point, relative to the manifest. */
  readonly main: string;
  /** Every file the bundle was built from (relative to the repository) with its mtime and size. */
  readonly inputs: Record<string, readonly [mtimeMs: number, size: number]>;
}

export async function buildCli(): Promise<void> {
  await rm(BUNDLE_DIR, { recursive: true, force: true });
  const started = Date.now();
  const result = await build({
    absWorkingDir: repo,
    // Worker threads start from a file beside the module that starts them: the chunks sit in one folder.
    entryPoints: { main: 'cli/main.ts', ...WORKER_ENTRIES },
    outdir: BUNDLE_DIR,
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [externalPackages],
    // Bundled CommonJS (commander) requires Node's built-ins.
    banner: {
      js: "import { createRequire as __svcRequire } from 'node:module';\nconst require = __svcRequire(import.meta.url);",
    },
  });
  const inputs: Record<string, readonly [number, number]> = {};
  // A bundled package is named by its package.json (and the lock file), not by each of its files.
  const files = new Set(['package.json', 'package-lock.json']);
  for (const input of Object.keys(result.metafile.inputs))
    files.add(input.includes('node_modules/') ? packageJsonOf(input) : input);
  for (const file of [...files].sort()) {
    const info = await stat(path.join(repo, file));
    // An edit while esbuild read the sources could be missing from the bundle: no manifest, no bundle run.
    if (info.mtimeMs > started) throw new Error(`${file} changed during the build; run it again`);
    inputs[file] = [info.mtimeMs, info.size];
  }
  const manifest: CliManifest = { main: 'main.js', inputs };
  await writeFile(path.join(BUNDLE_DIR, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli();
}

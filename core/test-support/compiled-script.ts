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

/**
 * Compiles a TypeScript child script once, so that tests spawning it many times start plain
 * `node` instead of the TypeScript loader each time. The output lives under node_modules so that
 * its package imports resolve as the sources' do; our own modules are bundled in. The worker
 * threads' entries are compiled beside it, where the modules that start them look for them.
 */
export async function compileScript(source: URL): Promise<CompiledScript> {
  const sourcePath = fileURLToPath(source);
  const name = basename(sourcePath, '.ts');
  const dir = join(repo, 'node_modules', '.cache', 'svc-tests', `${name}-${process.pid}-${Date.now()}`);
  const workers = Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([k, v]) => [k, join(repo, v)]));
  await build({
    entryPoints: { [name]: sourcePath, ...workers },
    outdir: dir,
    // Outside any package scope with "type": "module": the extension marks the files as ES modules.
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  return { path: join(dir, `${name}.mjs`), remove: () => rm(dir, { recursive: true, force: true }) };
}

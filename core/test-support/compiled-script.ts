import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** A test's child-process script compiled to plain JavaScript, and how to remove it. */
export interface CompiledScript {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * Compiles a TypeScript child script once, so that tests spawning it many times start plain
 * `node` instead of the TypeScript loader each time. The output lives under node_modules so that
 * its package imports resolve as the sources' do; our own modules are bundled in.
 */
export async function compileScript(source: URL): Promise<CompiledScript> {
  const sourcePath = fileURLToPath(source);
  const name = `${basename(sourcePath, '.ts')}-${process.pid}-${Date.now()}.mjs`;
  const path = fileURLToPath(new URL(`../../node_modules/.cache/svc-tests/${name}`, import.meta.url));
  await build({
    entryPoints: [sourcePath],
    outfile: path,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  return { path, remove: () => rm(path, { force: true }) };
}

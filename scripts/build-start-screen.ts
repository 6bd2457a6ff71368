/**
 * Builds the desktop app's start screen (part of `npm run build`) into desktop/start-screen/dist/:
 * its page, one classic script and one style sheet, with the console's components and styles
 * (desktop/renderer/src). The window loads the page from a file: URL, where module scripts would
 * need CORS a file has none of, so the script is an IIFE loaded with `defer`, as the page's CSP
 * (`script-src 'self'`, nothing inline) allows.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = fileURLToPath(new URL('..', import.meta.url));
const source = path.join(repo, 'desktop', 'start-screen');
export const START_SCREEN_DIST = path.join(source, 'dist');

/** Writes index.html, start-screen.js and start-screen.css into `outDir`. */
export async function buildStartScreen(outDir: string = START_SCREEN_DIST): Promise<string> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { 'start-screen': path.join(source, 'src', 'main.tsx') },
    outdir: outDir,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome130',
    jsx: 'automatic',
    minify: true,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  await copyFile(path.join(source, 'index.html'), path.join(outDir, 'index.html'));
  return outDir;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`wrote ${await buildStartScreen()}`);
}

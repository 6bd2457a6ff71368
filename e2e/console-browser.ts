import { AxeBuilder } from '@axe-core/playwright';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';

/** Debian's Chromium (`apt-get install chromium`); CI installs it, Playwright's own browsers are never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** The committed screenshots the docs link to. */
export const DOCS_SCREENSHOTS = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));

/**
 * Where the e2e run saves its screenshots: `docs/screenshots/` only when `SVC_SCREENSHOTS=1` asks
 * for it (a deliberate refresh of the committed pictures), otherwise a temp folder removed at the
 * end, so an ordinary test run never rewrites committed files yet still takes every screenshot.
 */
export async function screenshotFolder(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ dir: string; dispose(): Promise<void> }> {
  if (env['SVC_SCREENSHOTS'] === '1') {
    await mkdir(DOCS_SCREENSHOTS, { recursive: true });
    return { dir: DOCS_SCREENSHOTS, dispose: async () => {} };
  }
  const dir = await mkdtemp(join(tmpdir(), 'svc-console-screenshots-'));
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium with a fresh profile (Playwright makes a new user-data-dir per launch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Builds the console from its sources into a temp folder, so a test never serves a stale build. */
export async function buildConsole(): Promise<{ root: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-console-build-'));
  const root = join(dir, 'dist');
  await build({
    configFile: fileURLToPath(new URL('../desktop/renderer/vite.config.ts', import.meta.url)),
    logLevel: 'warn',
    build: { outDir: root, emptyOutDir: true },
  });
  return { root, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** What the report of a violation tells (axe-core's Result, reduced to what is printed). */
interface AxeViolation {
  readonly id: string;
  readonly help: string;
  readonly impact?: string | null;
  readonly nodes: readonly { readonly target: readonly unknown[] }[];
}

/**
 * Saves the screen to `dir/<name>.png` (API keys painted over: no key goes into a committed file)
 * and returns axe's serious and critical violations on it, one line each (none is the goal).
 */
export async function screenProblems(page: Page, dir: string, name: string): Promise<string[]> {
  await page.screenshot({ path: join(dir, `${name}.png`), mask: [page.getByTestId('api-key')] });
  const axe = await new AxeBuilder({ page }).analyze();
  const violations: readonly AxeViolation[] = axe.violations;
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

import type axe from 'axe-core';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, onTestFailed } from 'vitest';
import { bootstrapEmbeddedDefault } from '../core/tenancy/bootstrap.ts';
import { FAST_KDF, createTempVault, type TempVault } from '../core/test-support/temp-vault.ts';
import { startServer, type RunningServer, type StartServerOptions } from '../server/listen.ts';
import { CONSOLE_BUILD, consoleInputsDigest, recordedDigest } from '../scripts/console-build-digest.ts';

/** Debian's Chromium (`apt-get install chromium`); CI installs it, Playwright's own browsers are never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** The committed screenshots the docs link to. */
export const DOCS_SCREENSHOTS = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));

/**
 * Where the e2e run saves its screenshots: `docs/screenshots/` when `SVC_SCREENSHOTS=1` asks for a
 * deliberate refresh of the committed pictures; otherwise none is taken (`dir` undefined). Nothing
 * in an ordinary run looks at a picture, and capturing them cost Chromium CPU: `e2e/console.test.ts`
 * alone under `scripts/suite-cpu/machine-cpu.sh`, two runs each, 36.0 / 41.6 machine CPU s with
 * its 15 captures and 34.1 / 33.6 without. Each screen is still checked with axe either way.
 */
export async function screenshotFolder(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ dir: string | undefined; dispose(): Promise<void> }> {
  if (env['SVC_SCREENSHOTS'] === '1') {
    await mkdir(DOCS_SCREENSHOTS, { recursive: true });
    return { dir: DOCS_SCREENSHOTS, dispose: async () => {} };
  }
  return { dir: undefined, dispose: async () => {} };
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // The address bar's suggestion popups are web pages of the browser's own, which it loads into a
  // renderer of their own at every launch, headless too, though no test ever opens them.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
];

/** Merges the --disable-features lists, Playwright's and CHROMIUM_ARGS', before starting CHROMIUM. */
const CHROMIUM_LAUNCHER = fileURLToPath(new URL('./chromium-launcher.sh', import.meta.url));

/** Headless Chromium with a fresh profile (Playwright makes a new user-data-dir per launch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_LAUNCHER,
    env: { ...process.env, SVC_CHROMIUM: CHROMIUM },
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BUILD_CACHE = join(REPO, 'node_modules', '.cache', 'svc-console');
/** A lock older than this was left by a run that died: the next build takes it over. */
const STALE_LOCK_MS = 10 * 60_000;
const LOCK_POLL_MS = 250;

/**
 * The console built from its current sources, so a test never serves a stale build: the one
 * `npm run build:console` made when it records the same sources' digest (as after `npm run build`),
 * else a build of its own, kept under node_modules/.cache/svc-console/<digest of its inputs>: the browser test files of a
 * run (and later runs over the same sources) share one build instead of each building its own.
 * While one file builds (holding `<digest>.lock`), another waits for it; older builds are removed.
 */
export async function buildConsole(): Promise<{ root: string; dispose(): Promise<void> }> {
  const digest = await consoleInputsDigest();
  if ((await recordedDigest(CONSOLE_BUILD)) === digest)
    return { root: CONSOLE_BUILD, dispose: async () => {} };
  const root = join(BUILD_CACHE, digest);
  const lock = `${root}.lock`;
  await mkdir(BUILD_CACHE, { recursive: true });
  for (;;) {
    if (existsSync(root)) return { root, dispose: async () => {} };
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await stat(lock).catch(() => null);
      if (held !== null && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
        await rm(lock, { recursive: true, force: true });
      } else {
        await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
    }
  }
  try {
    if (!existsSync(root)) {
      const staging = await mkdtemp(join(BUILD_CACHE, 'building-'));
      // Loaded only to build: most runs find the build in the cache.
      const { build } = await import('vite');
      // Vitest runs with NODE_ENV=test, which Vite keeps and passes on to React and its JSX
      // transform (development builds, half again as large and slower): the console is tested as
      // `npm run build:console` builds it, so NODE_ENV is production for the build's duration.
      const nodeEnv = process.env['NODE_ENV'];
      process.env['NODE_ENV'] = 'production';
      try {
        await build({
          configFile: fileURLToPath(new URL('../desktop/renderer/vite.config.ts', import.meta.url)),
          logLevel: 'warn',
          build: { outDir: staging, emptyOutDir: true },
        });
      } finally {
        process.env['NODE_ENV'] = nodeEnv;
      }
      await rename(staging, root);
      for (const entry of await readdir(BUILD_CACHE)) {
        if (entry !== digest && entry !== `${digest}.lock` && !entry.endsWith('.lock')) {
          await rm(join(BUILD_CACHE, entry), { recursive: true, force: true });
        }
      }
    }
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  return { root, dispose: async () => {} };
}

/** What the report of a violation tells (axe-core's Result, reduced to what is printed). */
interface AxeViolation {
  readonly id: string;
  readonly help: string;
  readonly impact: string | null;
  readonly nodes: readonly { readonly target: readonly unknown[] }[];
}

/**
 * axe-core's browser build, read once per process: the file its documentation injects into a page
 * (the minified form of `axe.source`, the same rules).
 */
let axeScript: Promise<string> | undefined;
function axeSource(): Promise<string> {
  axeScript ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeScript;
}

/**
 * axe-core's default rules on the whole page. Violations are reported in full; the other result
 * groups (passes, incomplete, inapplicable) keep one node each instead of every node (axe-core's
 * `resultTypes`): the same rules run on the same elements, only the describing of what passed is
 * skipped, and only violations are read here.
 */
const AXE_RUN_OPTIONS: axe.RunOptions = { resultTypes: ['violations'] };

/**
 * The page's axe violations. axe-core is put into a document once and reused by the later checks
 * of that document (the console changes screens without loading a new one); a reload or a new page
 * gets it again. The check runs `axe.run` in the page itself, which covers one document: a page with
 * frames would need axe-core in each frame, so one is refused rather than half checked.
 */
async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (page.frames().length > 1) {
    throw new Error('screenProblems checks pages without frames: this one has frames axe would not see.');
  }
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(await axeSource());
  return page.evaluate(async (options) => {
    // Browser globals, named through globalThis: this file is type-checked without the DOM library.
    const { axe: inPage, document } = globalThis as unknown as {
      axe: typeof axe;
      document: axe.ElementContext;
    };
    const results = await inPage.run(document, options);
    return results.violations.map((v) => ({
      id: v.id,
      help: v.help,
      impact: v.impact ?? null,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  }, AXE_RUN_OPTIONS);
}

/**
 * Saves the screen to `dir/<name>.png` when there is a `dir` (API keys and proxy keys painted over:
 * no key goes into a committed file) and returns axe's serious and critical violations on it, one
 * line each (none is the goal).
 */
export async function screenProblems(page: Page, dir: string | undefined, name: string): Promise<string[]> {
  if (dir !== undefined) {
    await page.screenshot({
      path: join(dir, `${name}.png`),
      mask: [page.locator('[data-testid="api-key"], [data-secret]')],
    });
  }
  const violations = await axeViolations(page);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

/**
 * How far the page reaches past the right edge of the window, in CSS pixels (0: it fits, nothing
 * scrolls sideways). Tables that scroll inside their own box do not count: the page itself must fit.
 */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(
    'Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth)',
  ) as Promise<number>;
}

/**
 * A member's session over HTTP (signed in with `email` and `password`, acting in `tenantId`), for
 * comparing what the console shows with what the API answers.
 */
export async function sessionHeaders(
  serverUrl: string,
  member: { readonly email: string; readonly password: string },
  tenantId: string,
): Promise<Record<string, string>> {
  const login = await fetch(`${serverUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: member.email, password: member.password }),
  });
  if (!login.ok) throw new Error(`signing in as ${member.email} answered ${login.status}`);
  const { token } = (await login.json()) as { token: string };
  return { authorization: `Bearer ${token}`, 'svc-tenant-id': tenantId };
}

/** A served console and a browser on it: what each console test file runs against. */
export interface ConsoleRig {
  /** The vault the server holds (its folder keeps the outbox, when one is asked for). */
  readonly temp: TempVault;
  readonly server: RunningServer;
  /** The Default tenant the vault was set up with. */
  readonly tenantId: string;
  readonly browser: Browser;
  readonly context: BrowserContext;
  /** The first page of `context`; each step waits up to 20 s (a loaded machine is slow). */
  readonly page: Page;
  /** Checks `target` (default the first page) with axe, saving it as `name` when screenshots are asked for. */
  screen(name: string, target?: Page): Promise<void>;
}

/**
 * Registers, in the calling suite, the hooks of a console test file and returns the rig they make:
 * before all tests, a temp vault set up as `svc start` sets it up, served on 127.0.0.1 with the
 * console built from its current sources (plus `serverOptions`, e.g. a mail outbox in the vault's
 * folder), and Chromium on a 1280×800 page; after all, everything closed; a failing test leaves a
 * screenshot in the temp folder, named after `name` and the test.
 */
export function useConsoleRig(
  name: string,
  serverOptions: (temp: TempVault) => Partial<StartServerOptions> = () => ({}),
): () => ConsoleRig {
  let rig: ConsoleRig | undefined;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    const built = await buildConsole();
    closers.push(() => built.dispose());
    const shots = await screenshotFolder();
    closers.push(() => shots.dispose());
    const temp = await createTempVault();
    closers.push(() => temp.dispose());
    const boot = await bootstrapEmbeddedDefault(temp.vault);
    const server = await startServer(temp.vault, {
      host: '127.0.0.1',
      port: 0,
      sweepIntervalMs: false,
      logger: { level: 'silent' },
      serviceOptions: { passwordKdf: FAST_KDF },
      console: { root: built.root },
      ...serverOptions(temp),
    });
    closers.push(() => server.close());
    const browser = await launchChromium();
    closers.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    rig = {
      temp,
      server,
      tenantId: boot!.tenantId,
      browser,
      context,
      page,
      async screen(screenName, target = page) {
        expect(await screenProblems(target, shots.dir, screenName)).toEqual([]);
      },
    };
  }, 120_000);
  afterAll(async () => {
    // The browser first, the vault last: the reverse of how they were made.
    for (const close of closers.reverse()) await close();
  });
  beforeEach((test) => {
    onTestFailed(async () => {
      await rig?.page.screenshot({
        path: join(tmpdir(), `${name}-failed-${test.task.name.slice(0, 40)}.png`),
      });
    });
  });
  return () => {
    if (rig === undefined) throw new Error('the console rig is made before the first test');
    return rig;
  };
}

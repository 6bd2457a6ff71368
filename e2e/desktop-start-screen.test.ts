/**
 * The desktop app's start screen in real Chromium, from its built files on a file: URL as the
 * Electron window loads it, with a stub of the preload's bridge (Electron's binary cannot be had
 * here): the console's look, the recent vaults, unlocking with a refusal that names the holder,
 * creating with the strength meter, the key shown once, and the console opened. The page's CSP
 * refuses nothing and axe finds no serious or critical violation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStartScreen } from '../scripts/build-start-screen.ts';
import { HAS_CHROMIUM, launchChromium, screenProblems, screenshotFolder } from './console-browser.ts';

if (!HAS_CHROMIUM) {
  console.warn(
    'e2e/desktop-start-screen.test.ts skipped: /usr/bin/chromium is missing (apt-get install -y chromium).',
  );
}

/**
 * The bridge as the preload exposes it, answering as the main process would; every call is recorded
 * in `window.__calls`. Runs in the page before its script.
 */
function installStubBridge(): void {
  const calls: Array<[string, unknown]> = [];
  let unlockAttempts = 0;
  const answer =
    (method: string, reply: (request: unknown) => unknown) =>
    (request?: unknown): Promise<unknown> => {
      calls.push([method, request]);
      return Promise.resolve(reply(request));
    };
  const opened = {
    ok: true,
    info: {
      path: '/home/ada/work.svc',
      url: 'http://127.0.0.1:41234',
      consoleUrl: 'http://127.0.0.1:41234/console/',
      apiKey: 'key_ShownOnceShownOnceShownOnce0000000000',
    },
  };
  Object.defineProperty(globalThis, '__calls', { value: calls });
  Object.defineProperty(globalThis, 'svcDesktop', {
    value: Object.freeze({
      listRecentVaults: answer('listRecentVaults', () => [
        { path: '/home/ada/work.svc', openedAt: '2030-01-01T00:00:00.000Z', remembered: false },
      ]),
      chooseVaultFile: answer('chooseVaultFile', () => '/home/ada/other.svc'),
      chooseNewVaultLocation: answer('chooseNewVaultLocation', () => '/home/ada/new.svc'),
      chooseKeyFile: answer('chooseKeyFile', () => '/home/ada/work.key'),
      chooseNewKeyFileLocation: answer('chooseNewKeyFileLocation', () => '/home/ada/new.key'),
      unlockVault: answer('unlockVault', () => {
        unlockAttempts += 1;
        return unlockAttempts === 1
          ? {
              ok: false,
              code: 'VAULT_LOCKED',
              message: 'The vault is in use by another process.',
              holder: {
                pid: 4242,
                host: 'laptop',
                startedAt: '2030-01-01T08:00:00.000Z',
                url: 'http://127.0.0.1:8080',
              },
            }
          : opened;
      }),
      unlockRemembered: answer('unlockRemembered', () => opened),
      createVault: answer('createVault', () => ({ ...opened, info: { ...opened.info, apiKey: null } })),
      forgetRememberedKey: answer('forgetRememberedKey', () => null),
      rememberAvailable: answer('rememberAvailable', () => true),
      openConsole: answer('openConsole', () => null),
      takeConsoleSignIn: answer('takeConsoleSignIn', () => null),
    }),
  });
}

describe.skipIf(!HAS_CHROMIUM)('the desktop start screen in Chromium', { timeout: 60_000 }, () => {
  let dir: string;
  let browser: Browser;
  let page: Page;
  let shots: Awaited<ReturnType<typeof screenshotFolder>>;
  const cspRefusals: string[] = [];
  const calls = () => page.evaluate('window.__calls') as Promise<Array<[string, unknown]>>;

  beforeAll(async () => {
    dir = await buildStartScreen(await mkdtemp(join(tmpdir(), 'svc-start-screen-')));
    shots = await screenshotFolder();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 900, height: 760 } });
    page.setDefaultTimeout(20_000);
    page.on('console', (message) => {
      // axe-core reads the page's own style sheets for its contrast checks; the page never connects.
      const text = message.text();
      if (message.type() === 'error' && !/^Connecting to '[^']*start-screen\.css'/.test(text))
        cspRefusals.push(text);
    });
    await page.addInitScript(installStubBridge);
    await page.goto(pathToFileURL(join(dir, 'index.html')).href);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await shots?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('has the console’s look: its styles and components', async () => {
    await page.getByRole('heading', { name: 'Open a vault' }).waitFor();
    // The console's primary button and card, from the console's own style sheet.
    const primary = page.getByRole('button', { name: 'Create a new vault…' });
    // Browser globals through globalThis: this file is type-checked without the DOM library.
    const background = await primary.evaluate(
      (el) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(el).backgroundColor,
    );
    expect(background).toBe('rgb(11, 92, 173)');
    expect(await page.locator('section.card').count()).toBe(1);
    expect(await page.locator('main.sign-in').count()).toBe(1);
    expect(await screenProblems(page, shots.dir, 'desktop-start-screen')).toEqual([]);
  });

  it('unlocks a recent vault; a refusal names the process holding it and offers its console', async () => {
    await page.getByRole('button', { name: '/home/ada/work.svc' }).click();
    await page.getByRole('heading', { name: 'Unlock the vault' }).waitFor();
    await page.getByLabel('Passphrase', { exact: true }).fill('the passphrase');
    await page.getByRole('button', { name: 'Unlock' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('held by process 4242 on laptop');
    await alert.getByRole('button', { name: "Open that server's console in the browser" }).waitFor();
    expect(await screenProblems(page, shots.dir, 'desktop-start-screen-locked')).toEqual([]);

    await page.getByRole('button', { name: 'Unlock' }).click();
    await page.getByRole('heading', { name: 'Vault open' }).waitFor();
    expect(await page.getByTestId('api-key').inputValue()).toBe('key_ShownOnceShownOnceShownOnce0000000000');
    expect(await screenProblems(page, shots.dir, 'desktop-start-screen-open')).toEqual([]);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await expect.poll(async () => (await calls()).map(([method]) => method)).toContain('openConsole');
    const unlock = (await calls()).find(([method]) => method === 'unlockVault');
    expect(unlock?.[1]).toEqual({
      path: '/home/ada/work.svc',
      secret: { kind: 'passphrase', passphrase: 'the passphrase' },
      remember: false,
    });
  });

  it('creates a vault with a passphrase, rating its strength, and goes straight to the console', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Create a new vault…' }).click();
    await page.getByRole('heading', { name: 'Create a new vault' }).waitFor();
    await page.getByLabel('Passphrase', { exact: true }).fill('abc');
    await page.getByText('Strength: very weak.').waitFor();
    await page.getByLabel('Passphrase', { exact: true }).fill('Correct horse battery staple 42!');
    await page.getByText('Strength: strong.').waitFor();
    await page.getByLabel('Passphrase again').fill('Correct horse battery staple 42!');
    await page.getByRole('checkbox', { name: 'Remember the key on this computer' }).check();
    expect(await screenProblems(page, shots.dir, 'desktop-start-screen-create')).toEqual([]);
    await page.getByRole('button', { name: 'Create and open' }).click();
    await expect.poll(async () => (await calls()).map(([method]) => method)).toContain('openConsole');
    expect((await calls()).find(([method]) => method === 'createVault')?.[1]).toEqual({
      path: '/home/ada/new.svc',
      secret: {
        kind: 'passphrase',
        passphrase: 'Correct horse battery staple 42!',
        confirmation: 'Correct horse battery staple 42!',
      },
      remember: true,
    });
    expect(cspRefusals).toEqual([]);
  });
});

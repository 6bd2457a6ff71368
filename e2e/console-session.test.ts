/**
 * The console session in real Chromium: the one-time link signs in once into an HttpOnly,
 * SameSite=Strict cookie; a reload and a new tab stay signed in while web storage holds nothing
 * secret; the owner reads the tenant's tokens masked without pasting a key (through the session's
 * own application), reveals one explicitly, and a given key lasts for the session across reloads;
 * signing out clears the cookie and removes the session application.
 */
import { whereLogFilter } from '../core/audit/log-filter.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createServices, outboxTenancyOptions, type Services } from '../core/services.ts';
import { FAST_KDF } from '../core/test-support/temp-vault.ts';
import type { RunningServer } from '../server/listen.ts';
import { consoleSignInLink } from '../server/routes/console-sessions.ts';
import { HAS_CHROMIUM, useConsoleRig, type ConsoleRig } from './console-browser.ts';

if (!HAS_CHROMIUM) {
  console.warn(
    'e2e/console-session.test.ts skipped: /usr/bin/chromium is missing (apt-get install -y chromium).',
  );
}

const OWNER = { email: 'owner@example.test', password: 'owner password 1' };
const CARD = '4242424242424242';

/** Everything this origin's pages keep in web storage, as one text. */
async function webStorage(page: Page): Promise<string> {
  return page.evaluate(
    'JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } })',
  ) as Promise<string>;
}

describe.skipIf(!HAS_CHROMIUM)('the console session in Chromium', { timeout: 90_000 }, () => {
  const rig = useConsoleRig('console-session');
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  let tenantId: string;
  let screen: ConsoleRig['screen'];
  let apiKey: string;
  let tokenId: string;
  /** The domain services over the served vault, to arrange and check what the browser cannot see. */
  let services: Services;
  beforeAll(async () => {
    let temp;
    ({ server, context, page, tenantId, screen, temp } = rig());
    services = createServices(temp.vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(temp.dir) });
    // A tenant's data written by a backend over HTTP, with a key the test keeps.
    const operatorApp = await services.applications.create(
      { kind: 'operator', tenantId },
      {
        name: 'Checkout backend',
        type: 'private',
        permissions: ['token:create', 'token:search'],
        rules: [
          {
            description: 'all',
            priority: 1,
            container: '/',
            transform: 'reveal',
            permissions: ['token:read'],
          },
        ],
      },
    );
    apiKey = operatorApp.key;
    const res = await fetch(`${server.url}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-api-key': apiKey },
      body: JSON.stringify({ card: { type: 'card_number', data: CARD, metadata: { order: 'o-17' } } }),
    });
    expect(res.status).toBe(200);
    tokenId = ((await res.json()) as { card: { id: string } }).card.id;
  });

  it('signs in with the one-time link into an HttpOnly, SameSite=Strict cookie', async () => {
    await page.goto(consoleSignInLink(server.app, server.url));
    await page.getByRole('heading', { name: /Set up the owner/ }).waitFor();
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Set up the owner and sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const cookies = await context.cookies(server.url);
    expect(cookies.map((c) => c.name)).toEqual([`svc_console_${new URL(server.url).port}`]);
    const [cookie] = cookies;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    // Host-only: no Domain attribute, so the browser keeps it for this host alone.
    expect(cookie!.domain).toBe('127.0.0.1');
    // No script of the page can read it.
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('keeps the session across a reload and in a new tab, with nothing secret in web storage', async () => {
    const cookie = (await context.cookies(server.url))[0]!.value;
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText(OWNER.email).waitFor();
    const stored = await webStorage(page);
    expect(stored).not.toContain(cookie);
    expect(stored).not.toMatch(/svcs_|svco_|key_/);
    // The only thing kept is the tab's tenant, which is no secret.
    expect(JSON.parse(stored)).toEqual({ local: {}, session: { 'svc-console.tenant': tenantId } });

    const tab = await context.newPage();
    try {
      tab.setDefaultTimeout(20_000);
      await tab.goto(`${server.url}/console/applications`);
      await tab.getByRole('heading', { name: 'Applications' }).waitFor();
      await tab.getByRole('cell', { name: /^Checkout backend/ }).waitFor();
    } finally {
      await tab.close();
    }
  });

  it('shows the owner the tenant’s tokens, masked, without pasting a key', async () => {
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByText('your console session').waitFor();
    await page.getByRole('button', { name: tokenId }).waitFor();
    const masked = await page.getByTestId('masked-data').first().textContent();
    expect(masked).toMatch(/4242$/);
    expect(await page.content()).not.toContain(CARD);
    await screen('tokens-session-masked');

    await page.getByRole('button', { name: tokenId }).click();
    const drawer = page.getByRole('dialog', { name: 'Token' });
    // The drawer shows the mask, not dots, until Reveal.
    expect(await drawer.getByTestId('masked-data').textContent()).toBe(masked);
    await drawer.getByRole('button', { name: 'Reveal data' }).click();
    await drawer.getByTestId('revealed-data').waitFor();
    expect(await drawer.getByTestId('revealed-data').textContent()).toBe(CARD);
    await screen('tokens-session-reveal');
    await drawer.getByRole('button', { name: 'Hide data' }).click();
    await drawer.getByTestId('masked-data').waitFor();
    await drawer.getByRole('button', { name: 'Close' }).click();

    // The reveal is the member's read in the audit log, in clear; the lists that showed the token
    // masked are the member's reads too.
    const reads = await whereLogFilter(rig().temp.vault.db.selectFrom('audit_logs'), {
      entityId: tokenId,
      operation: 'read',
    })
      .select(['actor_type', 'entity_id', 'revealed'])
      .execute();
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(new Set(reads.map((e) => e.actor_type))).toEqual(new Set(['user']));
    expect(reads.filter((e) => e.entity_id === tokenId).map((e) => e.revealed)).toEqual([1]);
    expect(reads.filter((e) => e.entity_id === 'list').every((e) => e.revealed === 0)).toBe(true);

    // A reload keeps the session and its token access.
    await page.reload();
    await page.getByText('your console session').waitFor();
    await page.getByRole('button', { name: tokenId }).waitFor();
  });

  it('keeps a given application key for the session, across a reload, without storing it', async () => {
    await page.getByRole('button', { name: 'Act as an application instead' }).click();
    await page.getByLabel('Application key').fill(apiKey);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('As application').waitFor();
    await page.getByText('Checkout backend').waitFor();
    await page.reload();
    await page.getByText('Checkout backend').waitFor();
    await page.getByRole('button', { name: tokenId }).waitFor();
    // Its list is masked too; its reveal shows what its own rules allow.
    expect(await page.content()).not.toContain(CARD);
    expect(await webStorage(page)).not.toContain(apiKey);
    await page.getByRole('button', { name: 'Stop acting as it' }).click();
    await page.getByText('your console session').waitFor();
  });

  it('signs out: the cookie is cleared, the session application removed, a reload asks to sign in', async () => {
    const before = await services.applications.list(
      { kind: 'operator', tenantId },
      {},
      { page: 1, size: 100 },
    );
    expect(before.items.some((a) => a.name === `Console session of ${OWNER.email}`)).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await context.cookies(server.url)).toEqual([]);
    const after = await services.applications.list(
      { kind: 'operator', tenantId },
      {},
      { page: 1, size: 100 },
    );
    expect(after.items.some((a) => a.name.startsWith('Console session of'))).toBe(false);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await webStorage(page)).toBe(JSON.stringify({ local: {}, session: {} }));
  });
});

/**
 * The console in real Chromium against a real server on 127.0.0.1 over a temp vault: the operator's
 * one-time link (owner set-up on first use), an application whose key is shown once, tokenizing
 * with that key over HTTP, the token found as that application, revealed and deleted, the audit entries, members and
 * settings, the sign-in failures and a member who sees only their tenant. Every screen is checked
 * with axe (no serious or critical violations) and, with SVC_SCREENSHOTS=1, saved to
 * docs/screenshots/.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TempVault } from '../core/test-support/temp-vault.ts';
import type { RunningServer } from '../server/listen.ts';
import { consoleSignInLink } from '../server/routes/console-sessions.ts';
import { acceptLinkOf, outboxMessages } from '../core/test-support/smtp-sink.ts';
import { ENTRY_MAX_BYTES } from '../desktop/renderer/vite.config.ts';
import {
  HAS_CHROMIUM,
  horizontalOverflow,
  sessionHeaders,
  useConsoleRig,
  type ConsoleRig,
} from './console-browser.ts';

if (!HAS_CHROMIUM) {
  console.warn('e2e/console.test.ts skipped: /usr/bin/chromium is missing (apt-get install -y chromium).');
}

const MEMBER = { email: 'member@example.test', password: 'member password 1' };

const OWNER = {
  email: 'owner@example.test',
  password: 'owner password 1',
  first_name: 'Olga',
  last_name: 'Owner',
};

// A browser under a loaded machine is slow: each step may wait up to 20 s, each test 90 s.
describe.skipIf(!HAS_CHROMIUM)('the console in Chromium', { timeout: 90_000 }, () => {
  // Invitation mail lands in an outbox folder the test reads.
  const rig = useConsoleRig('console', (temp) => ({
    tenancy: { mail: { kind: 'outbox', dir: join(temp.dir, 'outbox'), from: 'vault@example.test' } },
  }));
  let temp: TempVault;
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenantId: string;
  let screen: ConsoleRig['screen'];
  beforeAll(() => {
    ({ temp, server, browser, context, page, tenantId, screen } = rig());
  });

  const ownerHeaders = () => sessionHeaders(server.url, OWNER, tenantId);

  it('serves the console with its security headers, a favicon and an entry script within budget', async () => {
    const res = await fetch(`${server.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    const icon = /<link rel="icon"[^>]* href="([^"]+)"/.exec(html)?.[1];
    expect(icon).toBe('/console/favicon.svg');
    const favicon = await fetch(`${server.url}${icon}`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toBe('image/svg+xml');
    // Screens, CodeMirror and the chart load on demand: the entry script stays small.
    const entry = /<script type="module"[^>]* src="([^"]+)"/.exec(html)?.[1];
    const script = await fetch(`${server.url}${entry}`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeLessThanOrEqual(ENTRY_MAX_BYTES);
  });

  let link: string;
  it('signs the operator in with the one-time link, claiming the unclaimed default owner first', async () => {
    link = consoleSignInLink(server.app, server.url);
    await page.goto(link);
    await expect.poll(() => page.url()).toBe(`${server.url}/console/`); // the secret left the address bar
    await page.getByRole('heading', { name: /Set up the owner/ }).waitFor();
    await page.getByLabel('E-mail').fill('not an address');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Set up the owner and sign in' }).click();
    await page.locator('.field-errors').first().waitFor();
    expect(await page.locator('.field.invalid').count()).toBeGreaterThanOrEqual(2);
    await screen('sign-in-owner-setup');
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('First name').fill(OWNER.first_name);
    await page.getByLabel('Last name').fill(OWNER.last_name);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Set up the owner and sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => page.getByLabel('Tenant', { exact: true }).inputValue()).toBe(tenantId);
  });

  it('refuses the same link a second time', async () => {
    const other = await context.newPage();
    try {
      await other.goto(link);
      await other.getByText('The sign-in link did not work').waitFor();
      expect(await other.getByRole('alert').textContent()).toContain('unknown, used or expired');
    } finally {
      await other.close();
    }
  });

  let apiKey: string;
  it('creates an application with permissions for its type and shows its key once', async () => {
    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.getByRole('button', { name: 'Create application' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an application' });
    await dialog.getByLabel('Type').selectOption('private');
    await dialog.getByText('token:search').first().waitFor();
    expect(await dialog.getByText('tenant:read').count()).toBe(0); // management-only, filtered out
    for (const permission of ['token:create', 'token:search', 'token:delete']) {
      await dialog.getByRole('checkbox', { name: new RegExp(`^${permission} `) }).check();
    }
    // A rule that reveals token:read everywhere; first with a bad container and no name: the
    // server's field errors sit next to the fields they name.
    await dialog.getByRole('button', { name: 'Add a rule' }).click();
    const rule = dialog.getByRole('group', { name: 'Rule 1' });
    await rule.getByLabel('Container').fill('no-slashes');
    await rule.getByLabel('Transform').selectOption('reveal');
    await dialog.getByLabel('Name', { exact: true }).fill(' ');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await rule.locator('.field-errors').waitFor();
    expect(await rule.locator('.field-errors').textContent()).toContain("starts and ends with '/'");
    await dialog.getByLabel('Name', { exact: true }).fill('Checkout backend');
    await rule.getByLabel('Container').fill('/');
    await screen('applications-create');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const keyDialog = page.getByRole('dialog', { name: "The application's key" });
    await keyDialog.waitFor();
    apiKey = await keyDialog.getByTestId('api-key').inputValue();
    expect(apiKey.length).toBeGreaterThan(20);
    await screen('applications-key-once');
    await keyDialog.getByRole('button', { name: 'I have stored the key' }).click();
    await page.getByRole('cell', { name: /^Checkout backend/ }).waitFor();
    expect(await page.content()).not.toContain(apiKey); // the key is gone once the dialog closes
    await screen('applications');
  });

  it('lists each application with its id to copy, its permissions and rules, and edits it', async () => {
    const row = page.getByRole('row', { name: /Checkout backend/ });
    const id = await row.locator('code[title]').first().getAttribute('title');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await row.getByRole('button', { name: 'Copy the id of Checkout backend' }).click();
    await row.getByRole('button', { name: 'Copy the id of Checkout backend' }).getByText('Copied').waitFor();
    expect(await row.getByRole('list', { name: 'Permissions of Checkout backend' }).textContent()).toContain(
      'token:search',
    );
    expect(await row.getByRole('list', { name: 'Access rules of Checkout backend' }).textContent()).toContain(
      'reveal',
    );

    await row.getByRole('button', { name: 'Edit Checkout backend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Checkout backend' });
    const rule = dialog.getByRole('group', { name: 'Rule 1' });
    expect(await rule.getByLabel('Container').inputValue()).toBe('/');
    // The server judges an edit as any update: its messages land at the fields they name.
    await rule.getByLabel('Container').fill('pci');
    await dialog.getByRole('button', { name: 'Save application' }).click();
    await rule.locator('.field-errors').waitFor();
    await screen('applications-edit');
    await rule.getByLabel('Container').fill('/');
    await dialog.getByRole('checkbox', { name: /^token:read / }).check();
    await dialog.getByRole('button', { name: 'Save application' }).click();
    await page.getByRole('status').getByText('Application "Checkout backend" saved.').waitFor();
    await expect
      .poll(() => row.getByRole('list', { name: 'Permissions of Checkout backend' }).textContent())
      .toContain('token:read');
  });

  let tokenId: string;
  it('tokenizes with that key over HTTP, then finds, reveals and deletes the token in the console', async () => {
    const res = await fetch(`${server.url}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-api-key': apiKey },
      body: JSON.stringify({
        card: { type: 'card_number', data: '4242424242424242', metadata: { order: 'o-17' } },
      }),
    });
    expect(res.status).toBe(200);
    tokenId = ((await res.json()) as { card: { id: string } }).card.id;
    const extra = await fetch(`${server.url}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-api-key': apiKey },
      body: JSON.stringify({ type: 'token', data: 'a second token', metadata: { order: 'o-18' } }),
    });
    expect(extra.status).toBe(200);

    // The owner's console session reads the tenant's tokens masked through its own application;
    // acting as the application shows what that application sees.
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('button', { name: 'Act as an application instead' }).click();
    await page.getByRole('heading', { name: 'Act as an application' }).waitFor();
    await page.getByLabel('Application key').fill('key_NotAKeyOfThisVault0000');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Application key').fill(apiKey);
    await screen('tokens-choose-application');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByRole('button', { name: tokenId }).waitFor();
    // Shortened in the table, whole on hover and in the copy.
    expect(await page.getByRole('button', { name: tokenId }).getAttribute('title')).toBe(tokenId);
    expect(await page.getByRole('button', { name: 'Copy the id of this token' }).count()).toBe(2);

    // A search with a syntax error: the server's position is underlined in the query.
    await page.getByLabel('Search', { exact: true }).fill('type:card_number AND (');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('mark.error-at').waitFor();
    await screen('tokens-search-error');

    await page.getByLabel('Search', { exact: true }).fill('metadata.order:o-17');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 in all').waitFor();
    await screen('tokens');

    await page.getByRole('button', { name: tokenId }).click();
    const drawer = page.getByRole('dialog', { name: 'Token' });
    // The drawer shows the mask until Reveal.
    expect(await drawer.getByTestId('masked-data').textContent()).toMatch(/4242$/);
    expect(await drawer.textContent()).not.toContain('4242424242424242');
    await drawer.getByRole('button', { name: 'Reveal data' }).click();
    await drawer.getByTestId('revealed-data').waitFor();
    expect(await drawer.getByTestId('revealed-data').textContent()).toContain('4242424242424242');
    await screen('tokens-reveal');
    await drawer.getByRole('button', { name: 'Hide data' }).click();
    await drawer.getByTestId('masked-data').waitFor();
    await drawer.getByRole('button', { name: 'Close' }).click();
  });

  it('creates a token with a card-number hint and the server validation as the truth', async () => {
    await page.getByLabel('Search', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a token' });
    await dialog.getByLabel('Type').fill('card_number');
    await dialog.getByLabel('Data', { exact: true }).fill('4242424242424241');
    await dialog.getByText('Fails the Luhn check').waitFor();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').first().waitFor();
    await screen('tokens-create-error');
    await dialog.getByLabel('Data', { exact: true }).fill('4000056655665556');
    await dialog.getByText('Passes the Luhn check').waitFor();
    await dialog.getByLabel('Metadata').fill('source=console');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('3 in all').waitFor();

    // Delete the tokenized card, behind a confirmation.
    await page.getByRole('button', { name: tokenId }).click();
    const drawer = page.getByRole('dialog', { name: 'Token' });
    await drawer.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this token?' });
    await confirm.getByRole('button', { name: 'Delete token' }).click();
    await page.getByText('2 in all').waitFor();
    expect(await page.getByRole('button', { name: tokenId }).count()).toBe(0);
  });

  it('shows the audit entries of what happened, naming their actors, filterable by entity and operation', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByLabel('Entity id').fill(tokenId);
    await page.getByRole('button', { name: 'Filter' }).click();
    // Only the token's entries are left (the console session's application came and went too):
    // those about it, and the lists that returned it, one row each with its ids on demand.
    await expect
      .poll(async () => {
        const entities = await page.locator('table.audit tbody tr td:nth-child(3)').allTextContents();
        return new Set(entities.filter((text) => !/ (list|search): \d+ ids?/.test(text))).size;
      })
      .toBe(1);
    const lists = page.locator('table.audit details.entity-ids');
    expect(await lists.count()).toBeGreaterThan(0);
    await lists.first().locator('summary').click();
    await lists
      .first()
      .getByRole('button', { name: /Copy the id/ })
      .first()
      .waitFor();
    await page.getByRole('cell', { name: 'delete', exact: true }).waitFor();
    const operations = await page.locator('table.audit tbody tr td:nth-child(4)').allTextContents();
    expect(operations).toEqual(expect.arrayContaining(['create', 'delete']));
    // The reveal was a read in clear, marked as such.
    expect(operations.some((o) => o.startsWith('read'))).toBe(true);
    // Actors are named as the server names them: the application's name, the member's e-mail.
    const logs = (await (
      await fetch(`${server.url}/logs?entity_id=${tokenId}&size=25`, { headers: await ownerHeaders() })
    ).json()) as { data: { actor_name: string | null }[] };
    const actors = await page.locator('table.audit tbody tr td:nth-child(2) .actor').allTextContents();
    expect(actors).toEqual(logs.data.map((e) => e.actor_name));
    expect(actors).toContain('Checkout backend');
    expect(actors).toContain(OWNER.email);
    // Reads say whether the data was seen: the reveal in clear, the lists masked.
    const marks = await page.locator('table.audit .badge').allTextContents();
    expect(marks).toContain('revealed');
    expect(marks).toContain('masked');
    await screen('audit-log');

    // The operation filter is the server's: the request carries it.
    await page.getByLabel('Operation').selectOption('delete');
    const filtered = page.waitForRequest((r) => new URL(r.url()).searchParams.get('operation') === 'delete');
    await page.getByRole('button', { name: 'Filter' }).click();
    await filtered;
    await expect
      .poll(() => page.locator('table.audit tbody tr td:nth-child(4)').allTextContents())
      .toEqual(['delete']);
    await page.getByRole('button', { name: 'Clear' }).click();
    // The console's own page views are folded into one row each, to be opened on demand.
    const folded = page.locator('tr.page-views').first();
    await folded.waitFor();
    expect(await folded.textContent()).toMatch(/\d+ page views: read /);
    await folded.getByRole('button', { name: 'Show them' }).click();
    await page.locator('tr.folded').first().waitFor();
    await screen('audit-log-grouped');
  });

  it('invites a member (told where the mail went), who accepts on the invitation page; the owner cannot be removed', async () => {
    await page.getByRole('link', { name: 'Members' }).click();
    // The screen left behind names the owner too (the audit log's actors): wait for this one.
    await page.getByRole('heading', { name: 'Members', exact: true }).waitFor();
    await page.getByRole('cell', { name: OWNER.email, exact: true }).waitFor();
    await page.getByText('The owner cannot be removed').waitFor();
    await page.getByLabel('Invite by e-mail').fill('not an address');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.locator('.field.invalid').waitFor();
    await page.getByLabel('Invite by e-mail').fill(MEMBER.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('cell', { name: MEMBER.email, exact: true }).waitFor();
    // Where the mail went: no SMTP server here, so the outbox folder.
    const outbox = join(temp.dir, 'outbox');
    await page
      .locator('.notice', { hasText: `Invitation sent to ${MEMBER.email} to the outbox folder ${outbox}` })
      .waitFor();
    await page.getByRole('button', { name: `Resend the invitation of ${MEMBER.email}` }).click();
    await page.locator('.notice', { hasText: `Invitation sent again to ${MEMBER.email}` }).waitFor();
    await expect.poll(async () => (await outboxMessages(outbox)).length).toBe(2);
    expect(await page.getByRole('button', { name: /^Copy the id of member / }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Copy the id of the invitation of / }).count()).toBe(1);
    await screen('members');

    // The resent link is the live one; the invitee accepts it on its page, in the console's look.
    const mails = await outboxMessages(outbox);
    const { link } = acceptLinkOf(mails.at(-1)!);
    // In a browser of its own: the owner's session cookie is not the invitee's.
    const inviteeContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const invitee = await inviteeContext.newPage();
      invitee.setDefaultTimeout(20_000);
      await invitee.goto(link);
      await invitee.getByRole('heading', { name: 'Join the tenant' }).waitFor();
      await invitee.getByLabel('First name').fill('Mia');
      await invitee.getByLabel('Last name').fill('Member');
      await invitee.getByLabel('Password').fill('short');
      await invitee.getByRole('button', { name: 'Accept the invitation' }).click();
      await invitee.locator('#password-errors').waitFor();
      expect(await invitee.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
      await screen('invitation-accept', invitee);
      await invitee.getByLabel('Password').fill(MEMBER.password);
      await invitee.getByRole('button', { name: 'Accept the invitation' }).click();
      await invitee.getByRole('heading', { name: 'You joined the tenant' }).waitFor();
      expect(await invitee.getByText(MEMBER.email).count()).toBe(1);
      const signIn = invitee.getByRole('link', { name: 'Sign in' });
      expect(await signIn.getAttribute('href')).toBe('/console/');
      await screen('invitation-accepted', invitee);
      await signIn.click();
      await invitee.getByRole('heading', { name: 'Sign in' }).waitFor();
    } finally {
      await inviteeContext.close();
    }
    // A reload keeps the session (the cookie) and shows the accepted member.
    await page.reload();
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('cell', { name: MEMBER.email, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(1); // the member's, not the owner's
    await page.getByText('No open invitations.').waitFor();
  });

  it('edits the tenant settings as switches described by the server, with its validation at the fields', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Tenant settings' }).waitFor();
    // One switch per setting the server describes, at its default while not set.
    const dedupe = page.getByRole('switch', { name: 'Deduplicate tokens' });
    await dedupe.waitFor();
    expect(await dedupe.isChecked()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Fingerprint tokens' }).isChecked()).toBe(true);
    expect(await page.getByRole('switch').count()).toBe(3);
    expect(await page.getByRole('textbox', { name: 'Value' }).count()).toBe(0);
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.field.invalid').waitFor();
    await screen('settings-error');
    await dedupe.check();
    await page.getByLabel('Name').fill('Default tenant');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Tenant settings saved.').waitFor();
    const tenant = (await (
      await fetch(`${server.url}/tenants/self`, { headers: await ownerHeaders() })
    ).json()) as { settings: Record<string, string> };
    // Only what was set is stored: the untouched settings keep following their defaults.
    expect(tenant.settings).toEqual({ deduplicate_tokens: 'true' });
    await expect
      .poll(() => page.getByLabel('Tenant', { exact: true }).locator('option').first().textContent())
      .toBe('Default tenant');
    await screen('settings');
  });

  it('shows the overview: vault status, headroom, tokens by type, monthly active tokens', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('meter', { name: /^Database/ }).waitFor();
    await page.getByRole('meter', { name: /^Disk/ }).waitFor();
    await page.getByText(/ of 1\.5 GiB \(\d+ %/).waitFor();
    await page.getByRole('heading', { name: 'Tokens by type' }).waitFor();
    await page.getByRole('cell', { name: 'card_number' }).waitFor();
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    await screen('overview');
  });

  it('fits every screen at 1280 and 800 px without sideways scrolling, axe-clean', async () => {
    const screens = [
      ['Overview', 'Overview'],
      ['Tokens', 'Tokens'],
      ['Tokenize & import', 'Tokenize & import'],
      ['Applications', 'Applications'],
      ['Reactors', 'Reactors'],
      ['Proxies', 'Proxies'],
      ['Members', 'Members'],
      ['Audit log', 'Audit log'],
      ['Settings', 'Tenant settings'],
    ] as const;
    try {
      for (const width of [1280, 800]) {
        await page.setViewportSize({ width, height: 900 });
        for (const [link, heading] of screens) {
          await page
            .getByRole('navigation', { name: 'Screens' })
            .getByRole('link', { name: link, exact: true })
            .click();
          await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
          await page
            .locator('[role="status"]', { hasText: /^Loading/ })
            .first()
            .waitFor({ state: 'detached' });
          expect(await horizontalOverflow(page), `${link} at ${width} px`).toBe(0);
          if (width === 800) await screen(`${link.toLowerCase().replace(/[^a-z]+/g, '-')}-800`);
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await page.getByRole('link', { name: 'Overview' }).click();
  });

  it('signs out, refuses a wrong password and signs the owner in with e-mail and password', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await screen('sign-in-failed');
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The session is in an HttpOnly cookie: a reload keeps it, and web storage holds no secret.
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await page.evaluate('JSON.stringify({ ...sessionStorage })')).not.toMatch(/svcs_|svco_|key_/);
  });

  it('lists the tenants of the signed-in user and switches between them', async () => {
    // A user creates a tenant and owns it; the console switches to it.
    await page.getByRole('button', { name: 'New tenant' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a tenant' });
    await dialog.getByRole('button', { name: 'Create tenant' }).click();
    await dialog.locator('.field.invalid').waitFor();
    await dialog.getByLabel('Tenant name').fill('Second tenant');
    await dialog.getByRole('button', { name: 'Create tenant' }).click();
    await expect
      .poll(async () => {
        const select = page.getByLabel('Tenant', { exact: true });
        return select.locator(`option[value="${await select.inputValue()}"]`).textContent();
      })
      .toBe('Second tenant');
    await page.getByLabel('Tenant', { exact: true }).selectOption({ label: 'Default tenant' });
    const names = await page.getByLabel('Tenant', { exact: true }).locator('option').allTextContents();
    expect(names.sort()).toEqual(['Default tenant', 'Second tenant']);
    // Switching tenant shows that tenant's data; its Tokens screen is the owner's session's own.
    await page.getByLabel('Tenant', { exact: true }).selectOption({ label: 'Second tenant' });
    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.locator('table, .state.empty').first().waitFor();
    expect(await page.getByRole('cell', { name: /^Checkout backend/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByText('your console session').waitFor();
  });

  it('shows a member only their own tenant, in a separate browser session', async () => {
    const memberContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const memberPage = await memberContext.newPage();
      memberPage.setDefaultTimeout(20_000);
      await memberPage.goto(`${server.url}/console/`);
      await memberPage.getByLabel('E-mail').fill(MEMBER.email);
      await memberPage.getByLabel('Password').fill(MEMBER.password);
      await memberPage.getByRole('button', { name: 'Sign in' }).click();
      await memberPage.getByRole('heading', { name: 'Overview' }).waitFor();
      const select = memberPage.getByLabel('Tenant', { exact: true });
      await expect.poll(() => select.locator('option').allTextContents()).toEqual(['Default tenant']);
      await memberPage.getByRole('link', { name: 'Members' }).click();
      await memberPage.getByRole('cell', { name: OWNER.email, exact: true }).waitFor();
    } finally {
      await memberContext.close();
    }
  });
});

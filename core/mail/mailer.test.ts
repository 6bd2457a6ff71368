import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { invitationMessage, quotedTenantName } from './invitation-mail.ts';
import { composedMail, createMailer, redactSmtpUrl, smtpDestination } from './mailer.ts';

describe('outbox mail', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    // No admin options: the default outbox next to the vault file.
    f = await openServicesFixture();
  });
  afterEach(() => f.close());

  it('writes one private .eml per invitation with a text and an HTML part carrying the link', async () => {
    const acme = await seedTenant(f.services, 'Acme <&>', 'owner@example.com');
    await f.services.invitations.create(acme.principal, { email: 'someone@example.com' });
    const dir = join(f.tmp.dir, 'outbox');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^20260101T000000000Z-[0-9a-f-]{36}\.eml$/);
    const path = join(dir, files[0] ?? '');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // Readable with `cat`: the text part is not quoted-printable, so the link sits whole on one line.
    const raw = await readFile(path, 'utf8');
    expect(raw).not.toContain('quoted-printable');
    expect(raw).toMatch(/^http:\/\/127\.0\.0\.1:8080\/invitations\/accept\?token=svci_[0-9A-Za-z]{43}$/m);
    expect(raw).toMatch(/^ {2}svc invitation accept svci_[0-9A-Za-z]{43}$/m);
    const mail = await simpleParser(await readFile(path));
    expect(mail.subject).toBe('Invitation to join a tenant on svc vault');
    // The configuration's default sender, the one default of both the CLI and the services.
    expect(mail.from?.text).toBe('"svc vault" <svc@localhost>');
    const link = /http:\/\/127\.0\.0\.1:8080\/invitations\/accept\?token=(svci_[0-9A-Za-z]{43})/.exec(
      mail.text ?? '',
    );
    expect(link).not.toBeNull();
    const secret = link?.[1] ?? '';
    expect(mail.html).toContain(`href="http://127.0.0.1:8080/invitations/accept?token=${secret}"`);
    expect(mail.html).toContain('&quot;Acme &lt;&amp;&gt;&quot;');
    const { member } = await f.services.invitations.accept({
      token: secret,
      first_name: 'Some',
      last_name: 'One',
      password: 'a good long password',
    });
    expect(member.role).toBe('ADMIN');
  });
});

describe('message and URL helpers', () => {
  it('keeps line breaks out of the subject and credentials out of descriptions', () => {
    const message = invitationMessage({
      to: 'a@example.com',
      tenantName: 'Evil\r\nBcc: x@example.com',
      acceptBaseUrl: 'https://vault.example.com/accept?lang=en',
      secret: 'svci_abc',
      expiresAt: '2026-01-04T00:00:00.000Z',
    });
    expect(message.subject).toBe('Invitation to join a tenant on svc vault');
    expect(message.text).toContain('https://vault.example.com/accept?lang=en&token=svci_abc');
    expect(redactSmtpUrl('smtps://user:secret@mail.example.com:465')).toBe('smtps://mail.example.com:465');
  });

  it('tells where mail goes: the SMTP host and port without credentials, or the outbox folder', () => {
    const smtp = createMailer({
      kind: 'smtp',
      url: 'smtp://user:secret@mail.example.com:2525/?tls.rejectUnauthorized=false',
      from: 'v@example.com',
    });
    expect(smtp.delivery).toEqual({ transport: 'smtp', destination: 'mail.example.com:2525' });
    expect(smtpDestination('smtp://mail.example.com')).toBe('mail.example.com:587');
    expect(smtpDestination('smtps://mail.example.com')).toBe('mail.example.com:465');
    const outbox = createMailer({ kind: 'outbox', dir: '/var/lib/svc/outbox', from: 'v@example.com' });
    expect(outbox.delivery).toEqual({ transport: 'outbox', destination: '/var/lib/svc/outbox' });
  });

  it('shows a sender-chosen tenant name only quoted, cut short and labelled, never as free text', () => {
    const lure =
      'Acme" on svc vault.\n\nIMPORTANT: your account is locked. Reply to help@evil.example with your password ' +
      'to keep access. Thanks, "Security';
    const message = invitationMessage({
      to: 'a@example.com',
      tenantName: lure,
      acceptBaseUrl: 'https://vault.example.com/accept',
      secret: 'svci_abc',
      expiresAt: '2026-01-04T00:00:00.000Z',
    });
    expect(message.subject).not.toContain('Acme');
    const lines = message.text.split('\n');
    const nameLine = lines.find((line) => line.includes('Acme')) ?? '';
    // One line, inside quotes the name cannot close, cut before the lure's request.
    expect(lines.filter((line) => line.includes('Acme'))).toHaveLength(1);
    expect(nameLine).toMatch(/^ {4}"Acme\\" on svc vault\. IMPORTANT: .*…"$/);
    expect(message.text).not.toContain('help@evil.example');
    expect(message.text).toContain('never asks for your password');
    expect(quotedTenantName('a\u202Eb\u0000c')).toBe('"a b c"');
  });
});

describe('composed mail', () => {
  it('keeps a non-ASCII tenant name readable as 8bit UTF-8 and the HTML part in base64', async () => {
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const message = invitationMessage({
      to: 'a@example.com',
      tenantName: 'Zürich Ops',
      acceptBaseUrl: 'https://vault.example.com/invitations/accept',
      secret: 'svci_abc',
      expiresAt: '2026-01-04T00:00:00.000Z',
    });
    const info = await transport.sendMail(composedMail('noreply@example.com', message));
    const raw = Buffer.isBuffer(info.message) ? info.message.toString('utf8') : '';
    expect(raw).toContain('Content-Transfer-Encoding: 8bit');
    expect(raw).toContain('    "Zürich Ops"');
    expect(raw).toMatch(/Content-Type: text\/html; charset=utf-8\nContent-Transfer-Encoding: base64/);
    const mail = await simpleParser(raw);
    expect(mail.text).toBe(message.text);
    expect(mail.html).toContain('https://vault.example.com/invitations/accept?token=svci_abc');
  });
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Tenant } from '../../../core/services-contract.ts';
import type { Invitation, Member } from '../../../core/tenancy/contract.ts';
import { expectNoSecret, expectOk, expectOneLineError, withHomeVault } from '../../test-support/expect.ts';
import { runSvc, type TempHome, type TestIoOptions } from '../../test-support/harness.ts';
import { makeTenantHome } from '../../test-support/tenant-home.ts';
import { acceptLinkIn, startSmtpSink, type SmtpSink } from '../../../core/test-support/smtp-sink.ts';

/** `svc invitation …` against a real vault, mail through a real SMTP server or the outbox. */

let home: TempHome;
let tenant: Tenant;
let smtp: SmtpSink;

const PASSWORD = 'new member password 123';
const OWNER_PASSWORD = 'owner password 123';

beforeAll(async () => {
  smtp = await startSmtpSink();
});
afterAll(() => smtp.close());

beforeEach(async () => {
  ({ home, tenant } = await makeTenantHome({ ownerPassword: OWNER_PASSWORD }));
});
afterEach(() => home.cleanup());

interface Paged<T> {
  readonly pagination: { total_items: number; page_number: number; page_size: number; total_pages: number };
  readonly data: T[];
}

type Delivered = Invitation & { mail: { transport: string; paths?: string[] } };

const smtpEnv = () => home.env({ SVC_SMTP_URL: smtp.url, SVC_PUBLIC_URL: 'https://vault.example.com/' });
const run = (args: string[], options: TestIoOptions = {}) => runSvc(args, { env: home.env(), ...options });

/** The message for `to` (the SMTP server is shared by the parallel tests of this file). */
function mailTo(to: string): { text: string } {
  const found = smtp.received.filter((m) => m.to.includes(to));
  const last = found[found.length - 1];
  if (last === undefined) throw new Error(`no mail to ${to}`);
  return { text: last.parsed.text ?? '' };
}

let counter = 0;
const uniqueEmail = () => `invitee-${process.pid}-${Date.now()}-${counter++}@example.com`;

describe('svc invitation with SMTP', () => {
  it('create sends the mail; accept with the link from it; the member is listed', async () => {
    const email = uniqueEmail();
    const created = await run(['invitation', 'create', '--email', email], { env: smtpEnv() });
    expectOk(created);
    expect(created.stdout).toMatch(
      new RegExp(`^Invitation: \\S+ \\(${email.replace(/[.]/g, '\\.')}, PENDING\\)\\n`),
    );
    expect(created.stdout).toContain(`Mail to ${email}: sent via SMTP`);
    expect(created.stderr).toBe('');

    const { link, secret } = acceptLinkIn(mailTo(email).text);
    expect(link.startsWith('https://vault.example.com/invitations/accept?token=')).toBe(true);
    expectNoSecret(created, secret);

    const accepted = await run(
      ['invitation', 'accept', link, '--first-name', 'Ada', '--last-name', 'Lovelace', '--password-stdin'],
      { stdin: `${PASSWORD}\n` },
    );
    expectOk(accepted);
    expect(accepted.stdout).toContain(`Accepted: ${email} is now a member (ADMIN) of tenant ${tenant.id}`);
    expectNoSecret(accepted, secret, PASSWORD);

    const members = await run(['member', 'list', '--json']);
    expectOk(members);
    const page = JSON.parse(members.stdout) as Paged<Member>;
    expect(page.data.map((m) => [m.user.email, m.role]).sort()).toEqual(
      [
        [email, 'ADMIN'],
        ['owner@example.com', 'OWNER'],
      ].sort(),
    );
    expect(page.pagination).toEqual({ total_items: 2, page_number: 1, page_size: 20, total_pages: 1 });
    const paged = await run(['member', 'list', '--size', '1']);
    expectOk(paged);
    expect(paged.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(paged.stderr).toBe('Page 1 of 2 (2 members); next: --page 2\n');
    const table = await run(['member', 'list']);
    expect(table.stdout).toContain(`${email}\tAda Lovelace\tADMIN`);

    // The new member signs in; the link is used up.
    await withHomeVault(home, async (_vault, services) => {
      await expect(services.auth.signIn(email, PASSWORD, '127.0.0.1')).resolves.toBeDefined();
    });
    const again = await run(['invitation', 'accept', secret, '--password-stdin'], { stdin: PASSWORD });
    expect(again.code).not.toBe(0);
    expectNoSecret(again, secret, PASSWORD);
  });

  it('on a terminal: prompts for the e-mail, then the accepting user for names and the password twice', async () => {
    const email = uniqueEmail();
    const created = await run(['invitation', 'create', '--json'], {
      env: smtpEnv(),
      isTTY: true,
      answers: [email],
    });
    expectOk(created);
    expect(created.asked).toEqual(['E-mail to invite:']);
    expect(JSON.parse(created.stdout)).toMatchObject({
      email,
      status: 'PENDING',
      mail: { transport: 'smtp' },
    });

    const { secret } = acceptLinkIn(mailTo(email).text);
    const accepted = await run(['invitation', 'accept', secret, '--json'], {
      isTTY: true,
      answers: ['Grace', 'Hopper', PASSWORD, PASSWORD],
    });
    expectOk(accepted);
    expect(accepted.asked).toEqual([
      'First name (leave empty if you already have an account):',
      'Last name:',
      'New password for your new account:',
      'Repeat the password:',
    ]);
    expect((JSON.parse(accepted.stdout) as { member: Member }).member).toMatchObject({
      role: 'ADMIN',
      tenant_id: tenant.id,
      user: { email, first_name: 'Grace', last_name: 'Hopper' },
    });
    expectNoSecret(accepted, secret, PASSWORD);
  });

  it('an existing user accepts with their password only', async () => {
    // The owner of a second tenant is invited to the first.
    const other = await run(
      ['tenant', 'create', '--name', 'Beta', '--owner-email', 'beta@example.com', '--owner-password-stdin'],
      {
        stdin: PASSWORD,
      },
    );
    expectOk(other);
    const created = await run(
      ['invitation', 'create', '--tenant', tenant.id, '--email', 'beta@example.com'],
      {
        env: smtpEnv(),
      },
    );
    expectOk(created);
    const { secret } = acceptLinkIn(mailTo('beta@example.com').text);
    const accepted = await run(['invitation', 'accept', secret], { isTTY: true, answers: ['', PASSWORD] });
    expectOk(accepted);
    expect(accepted.asked).toEqual([
      'First name (leave empty if you already have an account):',
      'Password of your account:',
    ]);
    expectNoSecret(accepted, secret, PASSWORD);
  });

  it('resend: a new mail; only the newest link works', async () => {
    const email = uniqueEmail();
    const created = await run(['invitation', 'create', '--email', email, '--json'], { env: smtpEnv() });
    expectOk(created);
    const invitation = JSON.parse(created.stdout) as Delivered;
    const first = acceptLinkIn(mailTo(email).text).secret;
    const resent = await run(['invitation', 'resend', invitation.id], { env: smtpEnv() });
    expectOk(resent);
    expect(resent.stdout).toContain(`Resent invitation ${invitation.id}`);
    expect(resent.stdout).toContain('sent via SMTP');
    const second = acceptLinkIn(mailTo(email).text).secret;
    expect(second).not.toBe(first);

    const old = await run(
      ['invitation', 'accept', first, '--first-name', 'A', '--last-name', 'B', '--password-stdin'],
      {
        stdin: PASSWORD,
      },
    );
    expect(old.code).not.toBe(0);
    expect(old.stderr).toMatch(/^svc: [^\n]+\n$/);
    expectNoSecret(old, first, PASSWORD);
    expectOk(
      await run(
        ['invitation', 'accept', second, '--first-name', 'A', '--last-name', 'B', '--password-stdin'],
        {
          stdin: PASSWORD,
        },
      ),
    );
  });
});

describe('svc invitation in outbox mode', () => {
  it('create writes an .eml and prints its path; --json names it too', async () => {
    const email = uniqueEmail();
    const created = await run(['invitation', 'create', '--email', email]);
    expectOk(created);
    const file = new RegExp(`Mail to ${email.replace(/[.]/g, '\\.')}: written to (\\S+\\.eml)`).exec(
      created.stdout,
    )?.[1];
    expect(file).toBeDefined();
    expect(path.dirname(file ?? '')).toBe(path.join(home.dir, 'outbox'));
    const parsed = await simpleParser(await readFile(file ?? ''));
    const { link, secret } = acceptLinkIn(parsed.text ?? '');
    expect(link.startsWith('http://127.0.0.1:8080/invitations/accept?token=')).toBe(true);
    expect(parsed.html).toContain(secret);
    expectNoSecret(created, secret);

    const json = await run(['invitation', 'create', '--email', uniqueEmail(), '--json']);
    expectOk(json);
    const delivered = JSON.parse(json.stdout) as Delivered;
    expect(delivered.mail.transport).toBe('outbox');
    expect(delivered.mail.paths).toHaveLength(1);
  });

  it('list, show, --status, delete (confirmed), and a deleted link is refused', async () => {
    const email = uniqueEmail();
    const created = await run(['invitation', 'create', '--email', email, '--json']);
    const invitation = JSON.parse(created.stdout) as Delivered;
    const file = invitation.mail.paths?.[0] ?? '';
    const { secret } = acceptLinkIn((await simpleParser(await readFile(file))).text ?? '');

    const list = await run(['invitation', 'list', '--json']);
    expectOk(list);
    expect((JSON.parse(list.stdout) as Paged<Invitation>).data.map((i) => i.id)).toEqual([invitation.id]);
    expect((await run(['invitation', 'list'])).stdout).toMatch(
      new RegExp(`^${invitation.id}\\t${email}\\tPENDING\\t`),
    );
    const expired = await run(['invitation', 'list', '--status', 'EXPIRED', '--json']);
    expect((JSON.parse(expired.stdout) as Paged<Invitation>).data).toEqual([]);
    expectOneLineError(await run(['invitation', 'list', '--status', 'GONE']), 2, /GONE/);
    expectOneLineError(await run(['invitation', 'list', '--size', '101']), 2);

    const show = await run(['invitation', 'show', invitation.id]);
    expectOk(show);
    expect(show.stdout).toContain(`E-mail\t${email}\n`);
    expect(show.stdout).toContain('Status\tPENDING\n');
    const shownJson = JSON.parse(
      (await run(['invitation', 'show', invitation.id, '--json'])).stdout,
    ) as Invitation;
    expect(shownJson).toMatchObject({ id: invitation.id, email, tenant_id: tenant.id });

    expectOneLineError(await run(['invitation', 'delete', invitation.id]), 2, /--yes/);
    const declined = await run(['invitation', 'delete', invitation.id], { isTTY: true, answers: [false] });
    expectOneLineError(declined, 2, /cancelled/);
    const deleted = await run(['invitation', 'delete', invitation.id], { isTTY: true, answers: [true] });
    expectOk(deleted);
    expect(deleted.asked).toEqual([`Delete the invitation of ${email}? Its links stop working.`]);
    expect(deleted.stdout).toBe(`Deleted invitation ${invitation.id} (${email})\n`);
    expectOneLineError(
      await run(['invitation', 'show', invitation.id]),
      1,
      /no invitation .* in this vault \(see 'npx svc invitation list'\)/,
    );

    const refused = await run(
      ['invitation', 'accept', secret, '--first-name', 'A', '--last-name', 'B', '--password-stdin'],
      {
        stdin: PASSWORD,
      },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^svc: [^\n]+\n$/);
    expectNoSecret(refused, secret, PASSWORD);

    const again = JSON.parse(
      (await run(['invitation', 'create', '--email', uniqueEmail(), '--json'])).stdout,
    ) as Invitation;
    // With a second tenant in the vault, the id still finds its own tenant.
    expectOk(await run(['tenant', 'create', '--name', 'Beta', '--owner-email', 'beta@example.com']));
    const found = await run(['invitation', 'show', again.id, '--json']);
    expectOk(found);
    expect(JSON.parse(found.stdout)).toMatchObject({ id: again.id, tenant_id: tenant.id });
    expectOneLineError(
      await run(['invitation', 'show', again.id, '--tenant', 'Beta']),
      1,
      /no invitation .* in this tenant/,
    );
  });

  it('usage errors: no --email without a terminal, a link without a token, a bad SVC_SMTP_URL', async () => {
    expectOneLineError(await run(['invitation', 'create']), 2, /missing --email/);
    expectOneLineError(
      await run([
        'invitation',
        'accept',
        'https://vault.example.com/invitations/accept?x=1',
        '--password-stdin',
      ]),
      2,
      /carries no token/,
    );
    const badSmtp = await run(['invitation', 'create', '--email', 'a@example.com'], {
      env: home.env({ SVC_SMTP_URL: 'http://user:hunter2@mail' }),
    });
    expectOneLineError(badSmtp, 2, /SVC_SMTP_URL: must start with smtp:\/\/… or smtps:\/\/…/);
    expectNoSecret(badSmtp, 'hunter2');
  });
});

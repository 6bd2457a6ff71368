import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../../core/config/index.ts';
import { tenancyOptionsFrom, serverTenancyOptionsFrom } from '../../tenancy-options.ts';
import type { Runner } from '../../command-kit.ts';
import type { CliDeps } from '../../deps.ts';
import { configureTree } from '../../main.ts';
import { makeTestIo, runSvc } from '../../test-support/harness.ts';
import { newMemberListCommand } from '../member/list.ts';
import { newMemberRemoveCommand } from '../member/remove.ts';
import { newTenantUsageCommand } from '../tenant/usage.ts';
import { newInvitationAcceptCommand } from './accept.ts';
import { newInvitationCreateCommand } from './create.ts';
import { newInvitationDeleteCommand } from './delete.ts';
import { newInvitationListCommand } from './list.ts';
import { newInvitationResendCommand } from './resend.ts';
import { newInvitationShowCommand } from './show.ts';
import { secretFromLink } from './format.ts';

/** Parsing layer of the tenant-administration commands: flags → typed options, nothing run. */

async function parse<O>(factory: (deps: CliDeps, run: Runner<O>) => Command, args: string[]): Promise<O> {
  const io = makeTestIo();
  let captured: O | undefined;
  const command = factory(io.deps, async (options) => {
    captured = options;
  });
  configureTree(command, io.deps);
  await command.parseAsync(args, { from: 'user' });
  if (captured === undefined) throw new Error('the runner was not called');
  return captured;
}

describe('typed options', () => {
  it('tenant usage', async () => {
    expect(await parse(newTenantUsageCommand, [])).toEqual({
      config: {},
      json: false,
      key: expect.any(Object),
      tenant: undefined,
    });
    expect(await parse(newTenantUsageCommand, ['--tenant', 't1', '--json'])).toMatchObject({
      tenant: 't1',
      json: true,
    });
  });

  it('member list: repeatable --user-id, page defaults 1/20', async () => {
    expect(await parse(newMemberListCommand, [])).toMatchObject({
      userIds: [],
      page: 1,
      size: 20,
      json: false,
    });
    expect(
      await parse(newMemberListCommand, [
        '--user-id',
        'a',
        '--user-id',
        'b,c',
        '--page',
        '2',
        '--size',
        '50',
      ]),
    ).toMatchObject({ userIds: ['a', 'b', 'c'], page: 2, size: 50 });
  });

  it('member remove: id and --yes', async () => {
    expect(await parse(newMemberRemoveCommand, ['m1'])).toMatchObject({ memberId: 'm1', yes: false });
    expect(await parse(newMemberRemoveCommand, ['m1', '-y', '--tenant', 't'])).toMatchObject({
      yes: true,
      tenant: 't',
    });
  });

  it('invitation create, list, show, resend, delete', async () => {
    expect(await parse(newInvitationCreateCommand, [])).toMatchObject({ email: undefined });
    expect(await parse(newInvitationCreateCommand, ['--email', 'a@example.com', '--json'])).toMatchObject({
      email: 'a@example.com',
      json: true,
    });
    expect(await parse(newInvitationListCommand, ['--status', 'EXPIRED', '--size', '100'])).toMatchObject({
      status: 'EXPIRED',
      page: 1,
      size: 100,
    });
    expect(await parse(newInvitationShowCommand, ['i1'])).toMatchObject({ invitationId: 'i1' });
    expect(await parse(newInvitationResendCommand, ['i1', '--json'])).toMatchObject({
      invitationId: 'i1',
      json: true,
    });
    expect(await parse(newInvitationDeleteCommand, ['i1', '--yes'])).toMatchObject({
      invitationId: 'i1',
      yes: true,
    });
  });

  it('invitation accept: the link as given, names, --password-stdin', async () => {
    expect(
      await parse(newInvitationAcceptCommand, [
        's3cret',
        '--first-name',
        'Ada',
        '--last-name',
        'L',
        '--password-stdin',
      ]),
    ).toMatchObject({ link: 's3cret', firstName: 'Ada', lastName: 'L', passwordStdin: true });
  });

  it('bad values are usage errors (exit 2, one line)', async () => {
    for (const args of [
      ['invitation', 'list', '--status', 'DONE'],
      ['invitation', 'list', '--page', 'x'],
      ['member', 'list', '--size', '-1'],
      ['invitation', 'show'],
      ['member', 'remove'],
    ]) {
      const result = await runSvc(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^svc: [^\n]+\n$/);
    }
  });
});

describe('accept links', () => {
  it('takes the full link, a query string or the bare secret', () => {
    expect(secretFromLink('https://v.example.com/invitations/accept?token=svci_abc')).toBe('svci_abc');
    expect(secretFromLink('  http://127.0.0.1:8080/invitations/accept?x=1&token=svci_abc ')).toBe('svci_abc');
    expect(secretFromLink('?token=svci_abc')).toBe('svci_abc');
    expect(secretFromLink('svci_abc')).toBe('svci_abc');
  });

  it('a link without a token is a usage error that does not repeat the link', () => {
    expect(() => secretFromLink('https://v.example.com/invitations/accept?tok=svci_abc')).toThrow(
      /carries no token/,
    );
    expect(() => secretFromLink('https://v.example.com/invitations/accept?tok=svci_abc')).not.toThrow(
      /svci_abc/,
    );
  });
});

describe('mail settings: flags > environment > config file > defaults', () => {
  const resolve = async (env: Record<string, string>) =>
    (await resolveConfig({ env: { SVC_HOME: '/h', ...env }, cwd: '/' })).config;

  it('defaults: the outbox in the home, links to 127.0.0.1:<port>', async () => {
    expect(tenancyOptionsFrom(await resolve({}))).toEqual({
      mail: { kind: 'outbox', dir: '/h/outbox', from: 'svc vault <svc@localhost>' },
      acceptBaseUrl: 'http://127.0.0.1:8080/invitations/accept',
    });
  });

  it('SVC_SMTP_URL, SVC_MAIL_FROM, SVC_PUBLIC_URL (trailing slash dropped); empty counts as unset', async () => {
    expect(
      tenancyOptionsFrom(
        await resolve({
          SVC_SMTP_URL: 'smtps://u:p@mail:465',
          SVC_MAIL_FROM: 'a@b.c',
          SVC_PUBLIC_URL: 'https://v.example.com/',
        }),
      ),
    ).toEqual({
      mail: { kind: 'smtp', url: 'smtps://u:p@mail:465', from: 'a@b.c' },
      acceptBaseUrl: 'https://v.example.com/invitations/accept',
    });
    expect(tenancyOptionsFrom(await resolve({ SVC_SMTP_URL: '' })).mail.kind).toBe('outbox');
  });

  it('reads the SMTP server and sender from the config file; the environment wins over it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-mailcfg-'));
    try {
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({
          smtpUrl: 'smtp://mail.internal:25',
          mailFrom: 'vault@corp.test',
          publicUrl: 'https://vault.corp.test',
        }),
      );
      const fromFile = (await resolveConfig({ env: { SVC_HOME: home }, cwd: '/' })).config;
      expect(tenancyOptionsFrom(fromFile)).toEqual({
        mail: { kind: 'smtp', url: 'smtp://mail.internal:25', from: 'vault@corp.test' },
        acceptBaseUrl: 'https://vault.corp.test/invitations/accept',
      });
      const overridden = (
        await resolveConfig({ env: { SVC_HOME: home, SVC_SMTP_URL: 'smtp://other:2525' }, cwd: '/' })
      ).config;
      expect(tenancyOptionsFrom(overridden).mail).toMatchObject({
        url: 'smtp://other:2525',
        from: 'vault@corp.test',
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('the server gets no link base unless a public URL is set (it uses its own URL)', async () => {
    expect(serverTenancyOptionsFrom(await resolve({}))).not.toHaveProperty('acceptBaseUrl');
    expect(
      serverTenancyOptionsFrom(await resolve({ SVC_PUBLIC_URL: 'https://v.example.com' })).acceptBaseUrl,
    ).toBe('https://v.example.com/invitations/accept');
  });

  it('bad URLs name the variable and never echo credentials', async () => {
    await expect(resolve({ SVC_SMTP_URL: 'mail.example.com' })).rejects.toThrow(/^SVC_SMTP_URL: not a URL/);
    await expect(resolve({ SVC_PUBLIC_URL: 'ftp://x' })).rejects.toThrow(/^SVC_PUBLIC_URL: must start/);
    await expect(resolve({ SVC_SMTP_URL: 'https://u:pw@x' })).rejects.not.toThrow(/pw/);
  });
});

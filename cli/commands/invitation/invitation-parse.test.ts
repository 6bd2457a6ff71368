import { describe, expect, it } from 'vitest';
import { runSvc } from '../../test-support/harness.ts';
import { parseOptions } from '../../test-support/parse.ts';
import { newInvitationAcceptCommand } from './accept.ts';
import { newInvitationCreateCommand } from './create.ts';
import { newInvitationDeleteCommand } from './delete.ts';
import { secretFromLink } from './format.ts';
import { newInvitationListCommand } from './list.ts';
import { newInvitationResendCommand } from './resend.ts';
import { newInvitationShowCommand } from './show.ts';

/** Parsing layer of `svc invitation …`: flags → typed options, nothing run. */

describe('typed options', () => {
  it('invitation create, list, show, resend, delete', async () => {
    expect(await parseOptions(newInvitationCreateCommand, [])).toMatchObject({ email: undefined });
    expect(
      await parseOptions(newInvitationCreateCommand, ['--email', 'a@example.com', '--json']),
    ).toMatchObject({
      email: 'a@example.com',
      json: true,
    });
    expect(
      await parseOptions(newInvitationListCommand, ['--status', 'EXPIRED', '--size', '100']),
    ).toMatchObject({
      status: 'EXPIRED',
      page: 1,
      size: 100,
    });
    expect(await parseOptions(newInvitationShowCommand, ['i1'])).toMatchObject({ invitationId: 'i1' });
    expect(await parseOptions(newInvitationResendCommand, ['i1', '--json'])).toMatchObject({
      invitationId: 'i1',
      json: true,
    });
    expect(await parseOptions(newInvitationDeleteCommand, ['i1', '--yes'])).toMatchObject({
      invitationId: 'i1',
      yes: true,
    });
  });

  it('invitation accept: the link as given, names, --password-stdin', async () => {
    expect(
      await parseOptions(newInvitationAcceptCommand, [
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
      ['invitation', 'show'],
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

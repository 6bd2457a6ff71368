import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptLinkOf, startSmtpSink } from '../core/test-support/smtp-sink.ts';
import type { SmtpSink } from '../core/test-support/smtp-sink.ts';
import { api, stop, svc, svcServe } from './support.ts';

/**
 * Tenant administration as an operator and a member walk it: an invitation from the CLI arrives at a local
 * SMTP server, only the newest link is accepted over HTTP, the member signs in and acts, and the
 * usage report counts this month's tokens.
 */
describe('tenant administration, end to end', () => {
  let home: string;
  let sink: SmtpSink;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-e2e-admin-'));
    sink = await startSmtpSink();
    env = { SVC_HOME: home, SVC_LOG_LEVEL: 'warn', SVC_SMTP_URL: sink.url };
  });
  afterAll(async () => {
    await sink.close();
    await rm(home, { recursive: true, force: true });
  });

  it('invites by e-mail, accepts the newest link, and reports usage', async () => {
    expect((await svc(['init'], env)).code).toBe(0);
    const created = await svc(
      ['tenant', 'create', '--name', 'Acme', '--owner-email', 'owner@acme.test', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { tenant, application } = JSON.parse(created.stdout) as {
      tenant: { id: string };
      application: { key: string };
    };

    const invited = await svc(['invitation', 'create', '--email', 'new@acme.test', '--json'], env);
    expect(invited.code, invited.stderr).toBe(0);
    const invitation = JSON.parse(invited.stdout) as { id: string; status: string };
    expect(invitation.status).toBe('PENDING');
    expect(sink.received).toHaveLength(1);
    const firstSecret = acceptLinkOf(sink.received[0]?.parsed).secret;

    expect((await svc(['invitation', 'resend', invitation.id], env)).code).toBe(0);
    expect(sink.received).toHaveLength(2);
    const newestSecret = acceptLinkOf(sink.received[1]?.parsed).secret;
    expect(newestSecret).not.toBe(firstSecret);

    const server = await svcServe(['serve', '--port', '0'], env);
    try {
      const person = { first_name: 'Nia', last_name: 'New', password: 'a long enough password' };
      const stale = await api(server.url, 'POST', '/invitations/accept', {
        body: { token: firstSecret, ...person },
      });
      expect(stale.status).toBe(404);
      const accepted = await api(server.url, 'POST', '/invitations/accept', {
        body: { token: newestSecret, ...person },
      });
      expect(accepted.status).toBe(201);

      const login = await api(server.url, 'POST', '/auth/login', {
        body: { email: 'new@acme.test', password: person.password },
      });
      expect(login.status).toBe(200);
      const session = (login.body as { token: string }).token;
      const self = await fetch(`${server.url}/tenants/self`, {
        headers: { authorization: `Bearer ${session}`, 'SVC-TENANT-ID': tenant.id },
      });
      expect(self.status).toBe(200);

      // Tokens created and read this month count as monthly active tokens.
      const app = await api(server.url, 'POST', '/applications', {
        key: application.key,
        body: { name: 'backend', type: 'private', permissions: ['token:create', 'token:read'] },
      });
      const backend = (app.body as { key: string }).key;
      const token = await api(server.url, 'POST', '/tokens', {
        key: backend,
        body: { type: 'token', data: 'x' },
      });
      expect(
        (await api(server.url, 'GET', `/tokens/${(token.body as { id: string }).id}`, { key: backend }))
          .status,
      ).toBe(200);
      const usage = await api(server.url, 'GET', '/tenants/self/reports/usage', { key: application.key });
      const report = (
        usage.body as {
          token_report: { monthly_active_tokens: number; metrics_by_type: Record<string, { count: number }> };
        }
      ).token_report;
      expect(report.monthly_active_tokens).toBe(1);
      expect(report.metrics_by_type.token?.count).toBe(1);
    } finally {
      expect(await stop(server.child)).toBe(0);
    }

    const members = await svc(['member', 'list', '--json'], env);
    expect(members.code, members.stderr).toBe(0);
    const emails = (JSON.parse(members.stdout) as { data: Array<{ user: { email: string } }> }).data.map(
      (m) => m.user.email,
    );
    expect(emails).toEqual(expect.arrayContaining(['owner@acme.test', 'new@acme.test']));

    const usage = await svc(['tenant', 'usage', '--json'], env);
    expect(
      (JSON.parse(usage.stdout) as { token_report: { monthly_active_tokens: number } }).token_report
        .monthly_active_tokens,
    ).toBe(1);
    for (const output of [invited.stdout, invited.stderr, members.stdout, usage.stdout]) {
      expect(output).not.toContain(newestSecret);
    }
  }, 120_000);
});

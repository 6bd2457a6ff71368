import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServices, outboxTenancyOptions } from '../core/services.ts';
import { DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS } from '../core/tenancy/usage-report.ts';
import { FAST_KDF } from '../core/test-support/temp-vault.ts';
import { createTestVault } from '../core/test-support/test-vault.ts';
import { ManualClock } from '../core/vault/clock.ts';
import { createKey, createTenantFixture, type TenantFixture } from './test-support/identity.ts';
import { acceptLinkOf, startSmtpSink, type SmtpSink } from '../core/test-support/smtp-sink.ts';
import { TOKEN_PERMISSIONS, privateKey, rule } from './test-support/tokens.ts';
import { createTestServer, type TestServer } from './test-support/test-server.ts';
import { startServer } from './listen.ts';

const ACCEPT_BASE = 'http://vault.test/invitations/accept';
const HOUR = 3_600_000;

let smtp: SmtpSink;
let server: TestServer;
let clock: ManualClock;
let a: TenantFixture;

beforeAll(async () => {
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await smtp.close();
});

beforeEach(async () => {
  smtp.received.length = 0;
  smtp.failing(false);
  clock = new ManualClock(new Date());
  server = await createTestServer({
    clock,
    serviceOptions: {
      tenancy: {
        mail: { kind: 'smtp', url: smtp.url, from: 'vault@example.test' },
        acceptBaseUrl: ACCEPT_BASE,
      },
    },
  });
  a = await createTenantFixture(server.services, 'Tenant A');
});
afterEach(async () => {
  await server.dispose();
});

const withKey = (key: string) => ({ 'svc-api-key': key });
const asMember = (token: string, tenantId: string) => ({
  authorization: `Bearer ${token}`,
  'svc-tenant-id': tenantId,
});

async function invite(email: string, key = a.admin.key) {
  const response = await server.app.inject({
    method: 'POST',
    url: '/tenants/self/invitations',
    headers: withKey(key),
    payload: { email },
  });
  return response;
}

function accept(payload: Record<string, unknown>) {
  return server.app.inject({ method: 'POST', url: '/invitations/accept', payload });
}

const NEW_USER = { first_name: 'Ada', last_name: 'Lovelace', password: 'correct horse battery staple' };

describe('invitations, end to end over SMTP', () => {
  it('invite → mail arrives → accept → the new member signs in and acts in the tenant', async () => {
    const created = await invite('ada@example.test');
    expect(created.statusCode, created.body).toBe(201);
    const invitation = created.json();
    expect(invitation).toMatchObject({
      tenant_id: a.tenant.id,
      email: 'ada@example.test',
      status: 'PENDING',
    });
    expect(Date.parse(invitation.expires_at) - clock.now().getTime()).toBe(72 * HOUR);

    const mail = await smtp.message(1);
    expect(mail.to).toEqual(['ada@example.test']);
    expect(mail.parsed.html).toEqual(expect.stringContaining('invitations/accept'));
    const { link, secret } = acceptLinkOf(mail.parsed);
    expect(link.startsWith(`${ACCEPT_BASE}?token=`)).toBe(true);
    expect(created.body).not.toContain(secret);

    const accepted = await accept({ token: secret, ...NEW_USER });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(accepted.headers['cache-control']).toBe('no-store');
    const member = accepted.json();
    expect(member).toMatchObject({
      tenant_id: a.tenant.id,
      role: 'ADMIN',
      user: { email: 'ada@example.test', first_name: 'Ada', last_name: 'Lovelace' },
    });

    // The link works once.
    expect((await accept({ token: secret, ...NEW_USER })).statusCode).toBe(404);

    const login = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: 'ada@example.test', password: NEW_USER.password },
    });
    expect(login.statusCode, login.body).toBe(200);
    const session = login.json<{ token: string }>().token;
    const tenant = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: asMember(session, a.tenant.id),
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const members = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/members',
      headers: asMember(session, a.tenant.id),
    });
    expect(members.statusCode, members.body).toBe(200);
    expect(members.json()).toMatchObject({
      pagination: { total_items: 2, page_number: 1, page_size: 20, total_pages: 1 },
    });
    const roles = members.json<{ data: Array<{ role: string; user: { email: string } }> }>().data;
    expect(roles.map((m) => [m.user.email, m.role])).toContainEqual(['ada@example.test', 'ADMIN']);
    expect(roles.map((m) => m.role)).toContain('OWNER');

    // The secret never reached the logs.
    expect(server.logs.text()).not.toContain(secret);
    expect(server.logs.text()).not.toContain(secret.slice(5));
  });

  it('after a resend only the newest link works', async () => {
    const { id } = (await invite('bob@example.test')).json<{ id: string }>();
    const first = acceptLinkOf((await smtp.message(1)).parsed).secret;
    clock.advance(10 * HOUR);
    const resent = await server.app.inject({
      method: 'POST',
      url: `/tenants/self/invitations/${id}/resend`,
      headers: withKey(a.admin.key),
    });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json()).toMatchObject({ id, status: 'PENDING' });
    expect(Date.parse(resent.json<{ expires_at: string }>().expires_at)).toBe(
      clock.now().getTime() + 72 * HOUR,
    );
    const second = acceptLinkOf((await smtp.message(2)).parsed).secret;
    expect(second).not.toBe(first);

    const old = await accept({ token: first, ...NEW_USER });
    expect(old.statusCode).toBe(404);
    expect(old.headers['content-type']).toContain('application/problem+json');
    const fresh = await accept({ token: second, ...NEW_USER });
    expect(fresh.statusCode, fresh.body).toBe(201);
    expect(server.logs.text()).not.toContain(first);
    expect(server.logs.text()).not.toContain(second);
  });

  it('resend needs both tenant:invitation:create and tenant:invitation:update', async () => {
    const { id } = (await invite('carol@example.test')).json<{ id: string }>();
    const resendWith = async (permissions: string[]) => {
      const app = await createKey(server.services, a.tenant.id, 'management', permissions);
      return server.app.inject({
        method: 'POST',
        url: `/tenants/self/invitations/${id}/resend`,
        headers: withKey(app.key),
      });
    };
    expect((await resendWith(['tenant:invitation:create'])).statusCode).toBe(403);
    expect((await resendWith(['tenant:invitation:update'])).statusCode).toBe(403);
    expect((await resendWith(['tenant:invitation:create', 'tenant:invitation:update'])).statusCode).toBe(200);
    const spec = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>();
    expect(spec.paths['/tenants/self/invitations/{id}/resend']?.post?.['x-permissions']).toEqual([
      'tenant:invitation:create',
      'tenant:invitation:update',
    ]);
  });

  it('a deleted invitation is gone and its link stops working', async () => {
    const { id } = (await invite('dan@example.test')).json<{ id: string }>();
    const { secret } = acceptLinkOf((await smtp.message(1)).parsed);
    const url = `/tenants/self/invitations/${id}`;
    expect((await server.app.inject({ method: 'GET', url, headers: withKey(a.admin.key) })).statusCode).toBe(
      200,
    );
    const deleted = await server.app.inject({ method: 'DELETE', url, headers: withKey(a.admin.key) });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    const gone = await server.app.inject({ method: 'GET', url, headers: withKey(a.admin.key) });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ detail: 'No such invitation.' });
    expect((await accept({ token: secret, ...NEW_USER })).statusCode).toBe(404);
    // A malformed id is a 404 like any other.
    const malformed = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations/not-a-uuid',
      headers: withKey(a.admin.key),
    });
    expect(malformed.statusCode).toBe(404);
    expect(malformed.json()).toMatchObject({ detail: 'No such invitation.' });
  });

  it('expiry is visible at once: EXPIRED in get and list, and the link is refused', async () => {
    const { id } = (await invite('erin@example.test')).json<{ id: string }>();
    const { secret } = acceptLinkOf((await smtp.message(1)).parsed);
    clock.advance(72 * HOUR + 1);
    const got = await server.app.inject({
      method: 'GET',
      url: `/tenants/self/invitations/${id}`,
      headers: withKey(a.admin.key),
    });
    expect(got.json()).toMatchObject({ id, status: 'EXPIRED' });
    const list = (status: string) =>
      server.app.inject({
        method: 'GET',
        url: `/tenants/self/invitations?status=${status}`,
        headers: withKey(a.admin.key),
      });
    expect((await list('EXPIRED')).json<{ data: Array<{ id: string }> }>().data.map((i) => i.id)).toEqual([
      id,
    ]);
    expect((await list('PENDING')).json<{ data: unknown[] }>().data).toEqual([]);
    expect((await list('ACCEPTED')).statusCode).toBe(400);
    const refused = await accept({ token: secret, ...NEW_USER });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).not.toContain(secret);
  });

  it('a failing SMTP server fails the create with a clear error and leaves no invitation', async () => {
    smtp.failing(true);
    const failed = await invite('fred@example.test');
    expect(failed.statusCode).toBe(502);
    expect(failed.headers['content-type']).toContain('application/problem+json');
    expect(failed.json()).toMatchObject({ status: 502, title: 'The e-mail could not be sent.' });
    const list = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations',
      headers: withKey(a.admin.key),
    });
    expect(list.json()).toMatchObject({ pagination: { total_items: 0 }, data: [] });
  });

  it('validates the invitation body and the accept body', async () => {
    expect((await invite('not an address')).statusCode).toBe(400);
    expect((await accept({})).statusCode).toBe(400);
    expect((await accept({ token: 'svci_nothing' })).statusCode).toBe(404);
    // An existing member's address → 409.
    expect((await invite(a.ownerEmail)).statusCode).toBe(409);
  });

  it('inviting an address again resends its invitation and answers 201', async () => {
    const first = await invite('gina@example.test');
    expect(first.statusCode).toBe(201);
    const again = await invite('gina@example.test');
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({
      id: first.json().id,
      email: 'gina@example.test',
      status: 'PENDING',
    });
    const list = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations',
      headers: withKey(a.admin.key),
    });
    expect(list.json()).toMatchObject({ pagination: { total_items: 1 } });
  });
});

describe('GET /invitations/accept', () => {
  it('answers a static page whose script posts to the accept endpoint; the secret is not echoed', async () => {
    const secret = `svci_${'A'.repeat(43)}`;
    const page = await server.app.inject({ method: 'GET', url: `/invitations/accept?token=${secret}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(page.body).toContain('<form id="accept">');
    expect(page.body).not.toContain(secret);
    expect(server.logs.text()).not.toContain(secret);
  });
});

describe('members', () => {
  async function addMember(email: string): Promise<{ id: string; session: string }> {
    const before = smtp.received.length;
    expect((await invite(email)).statusCode).toBe(201);
    const { secret } = acceptLinkOf((await smtp.message(before + 1)).parsed);
    const accepted = await accept({ token: secret, ...NEW_USER });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const login = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email, password: NEW_USER.password },
    });
    return { id: accepted.json<{ id: string }>().id, session: login.json<{ token: string }>().token };
  }

  it("the OWNER cannot be removed (422); a removed member's session loses the tenant at once", async () => {
    const list = await server.app.inject({
      method: 'GET',
      url: `/tenants/self/members?user_id=${a.owner.id}`,
      headers: withKey(a.admin.key),
    });
    const owner = list.json<{ data: Array<{ id: string; role: string }> }>().data;
    expect(owner).toHaveLength(1);
    expect(owner[0]?.role).toBe('OWNER');
    const refused = await server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${owner[0]?.id}`,
      headers: withKey(a.admin.key),
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json<{ detail: string }>().detail).toMatch(/owner/i);

    const member = await addMember('gina@example.test');
    const self = () =>
      server.app.inject({
        method: 'GET',
        url: '/tenants/self',
        headers: asMember(member.session, a.tenant.id),
      });
    expect((await self()).statusCode).toBe(200);
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${member.id}`,
      headers: withKey(a.admin.key),
    });
    expect(removed.statusCode).toBe(204);
    expect((await self()).statusCode).toBe(403);
    const again = await server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${member.id}`,
      headers: withKey(a.admin.key),
    });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ detail: 'No such member.' });
  });

  it('GET /tenants/self/owner answers the OWNER member; user objects carry picture: null', async () => {
    const owner = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/owner',
      headers: withKey(a.admin.key),
    });
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.json()).toMatchObject({
      role: 'OWNER',
      tenant_id: a.tenant.id,
      user: { id: a.owner.id, email: a.ownerEmail, picture: null },
    });
    const list = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/members',
      headers: withKey(a.admin.key),
    });
    for (const member of list.json<{ data: Array<{ user: object }> }>().data) {
      expect(member.user).toHaveProperty('picture', null);
    }
  });

  it('PUT /tenants/self/members/{id} transfers ownership; the owner cannot be lowered', async () => {
    const member = await addMember('ivan@example.test');
    const put = (id: string, body: unknown) =>
      server.app.inject({
        method: 'PUT',
        url: `/tenants/self/members/${id}`,
        headers: withKey(a.admin.key),
        payload: body as Record<string, unknown>,
      });
    const ownerBefore = (
      await server.app.inject({ method: 'GET', url: '/tenants/self/owner', headers: withKey(a.admin.key) })
    ).json<{ id: string }>();

    const lowered = await put(ownerBefore.id, { role: 'ADMIN' });
    expect(lowered.statusCode).toBe(422);
    const unknownRole = await put(member.id, { role: 'READER' });
    expect(unknownRole.statusCode).toBe(400);
    expect(unknownRole.json()).toMatchObject({ errors: { role: expect.any(Array) } });
    const same = await put(member.id, { role: 'ADMIN' });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ id: member.id, role: 'ADMIN' });

    const promoted = await put(member.id, { role: 'OWNER' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toMatchObject({ id: member.id, role: 'OWNER', modified_by: a.admin.id });
    const owner = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/owner',
      headers: withKey(a.admin.key),
    });
    expect(owner.json()).toMatchObject({ id: member.id });
    const tenant = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(a.admin.key),
    });
    expect(tenant.json()).toMatchObject({ owner_id: owner.json<{ user: { id: string } }>().user.id });
    // The previous owner is an ADMIN now, and can be removed like any member.
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/tenants/self/members/${ownerBefore.id}`,
      headers: withKey(a.admin.key),
    });
    expect(removed.statusCode).toBe(204);
    // Audited.
    const logs = await server.app.inject({
      method: 'GET',
      url: `/logs?entity_type=tenantMember&entity_id=${member.id}`,
      headers: withKey(a.admin.key),
    });
    expect(logs.json<{ data: Array<{ message: string }> }>().data.map((e) => e.message)).toContain(
      'Tenant member role changed to OWNER',
    );
    expect((await put('00000000-0000-4000-8000-000000000000', { role: 'ADMIN' })).statusCode).toBe(404);
  });

  it('filters by user_id (repeatable) and pages', async () => {
    await addMember('hal@example.test');
    const all = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/members?size=1&page=2',
      headers: withKey(a.admin.key),
    });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({
      pagination: { total_items: 2, page_number: 2, page_size: 1, total_pages: 2 },
    });
    expect(all.json<{ data: unknown[] }>().data).toHaveLength(1);
    const both = await server.app.inject({
      method: 'GET',
      url: `/tenants/self/members?user_id=${a.owner.id}&user_id=${a.owner.id.toUpperCase()}`,
      headers: withKey(a.admin.key),
    });
    expect(both.json()).toMatchObject({ pagination: { total_items: 1 } });
  });
});

describe('pagination bounds', () => {
  const cases: Array<[string, number]> = [
    ['/tenants/self/members?size=0', 200],
    ['/tenants/self/members?size=51', 400],
    ['/tenants/self/members?size=50', 200],
    ['/tenants/self/members?page=0', 400],
    ['/tenants/self/members?user_id=not-a-uuid', 400],
    ['/tenants/self/invitations?size=0', 200],
    ['/tenants/self/invitations?size=101', 400],
    ['/tenants/self/invitations?size=100', 200],
    ['/tenants/self/invitations?page=0', 400],
  ];
  it.each(cases)('%s → %i', async (url, status) => {
    const response = await server.app.inject({ method: 'GET', url, headers: withKey(a.admin.key) });
    expect(response.statusCode, response.body).toBe(status);
    if (status === 400) expect(response.headers['content-type']).toContain('application/problem+json');
  });

  it('defaults to page 1, size 20', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations',
      headers: withKey(a.admin.key),
    });
    expect(response.json()).toMatchObject({ pagination: { page_number: 1, page_size: 20 } });
  });
});

describe('usage report', () => {
  it('counts tokens by type and this month’s active tokens', async () => {
    const tokens = await privateKey(server.services, a.tenant.id, {
      permissions: TOKEN_PERMISSIONS,
      rules: [rule('/', TOKEN_PERMISSIONS, 'reveal')],
    });
    const created = await server.app.inject({
      method: 'POST',
      url: '/tokens',
      headers: withKey(tokens.key),
      payload: { data: 'usage data' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const report = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/reports/usage',
      headers: withKey(a.admin.key),
    });
    expect(report.statusCode, report.body).toBe(200);
    const body = report.json<{
      token_report: {
        metrics_by_type: Record<string, { count: number; last_created_at?: string }>;
        monthly_active_tokens: number;
        included_monthly_active_tokens: number;
        monthly_active_token_history: Array<{ year: number; month: number; count: number }>;
      };
    }>();
    const total = Object.values(body.token_report.metrics_by_type).reduce((sum, m) => sum + m.count, 0);
    expect(total).toBe(1);
    expect(body.token_report.monthly_active_tokens).toBe(1);
    // The server's configuration names no allowance: the default applies.
    expect(body.token_report.included_monthly_active_tokens).toBe(DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS);
    const now = clock.now();
    expect(body.token_report.monthly_active_token_history).toEqual([
      { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1, count: 1 },
    ]);
    const operations = await server.app.inject({
      method: 'GET',
      url: '/tenants/self/reports/operations',
      headers: withKey(a.admin.key),
    });
    expect(operations.statusCode).toBe(200);
    expect(operations.json()).toMatchObject({ token_report: { monthly_active_tokens: 1 } });
  });
});

describe('accept links default to the listening server', () => {
  it('startServer without acceptBaseUrl mails links to its own URL, and they work', async () => {
    const temp = await createTestVault();
    const running = await startServer(temp.vault, {
      host: '127.0.0.1',
      port: 0,
      sweepIntervalMs: false,
      logger: { level: 'silent' },
      serviceOptions: { passwordKdf: FAST_KDF },
      tenancy: { mail: { kind: 'smtp', url: smtp.url, from: 'vault@example.test' } },
    });
    try {
      // Fixtures through other services over the same vault: the server's are its own.
      const fixture = await createTenantFixture(
        createServices(temp.vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(temp.dir) }),
        'Listening',
      );
      const response = await fetch(`${running.url}/tenants/self/invitations`, {
        method: 'POST',
        headers: { ...withKey(fixture.admin.key), 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ivy@example.test' }),
      });
      expect(response.status).toBe(201);
      const { link } = acceptLinkOf((await smtp.message(1)).parsed);
      expect(link.startsWith(`${running.url}/invitations/accept?token=`)).toBe(true);
      const token = new URL(link).searchParams.get('token');
      const accepted = await fetch(`${running.url}/invitations/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, ...NEW_USER }),
      });
      expect(accepted.status).toBe(201);
    } finally {
      await running.close();
      await temp.dispose();
    }
  });
});

describe('POST /invitations/accept for an existing account', () => {
  it('is throttled with the account’s sign-in throttle: 429 with Retry-After after repeated wrong passwords', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    expect((await invite(b.ownerEmail)).statusCode).toBe(201);
    const { secret } = acceptLinkOf((await smtp.message(1)).parsed);
    for (let i = 0; i < 5; i++)
      expect((await accept({ token: secret, password: `wrong guess ${i}` })).statusCode).toBe(401);
    const throttled = await accept({ token: secret, password: b.ownerPassword });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('1');
    clock.advance(1000);
    expect((await accept({ token: secret, password: b.ownerPassword })).statusCode).toBe(201);
  });
});

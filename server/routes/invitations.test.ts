import { describe, expect, it } from 'vitest';
import { createServices, outboxTenancyOptions } from '../../core/services.ts';
import { acceptLinkOf } from '../../core/test-support/smtp-sink.ts';
import { FAST_KDF } from '../../core/test-support/temp-vault.ts';
import { createTestVault } from '../../core/test-support/test-vault.ts';
import { startServer } from '../listen.ts';
import { asMember, createKey, createTenantFixture, withKey } from '../test-support/identity.ts';
import { ACCEPT_BASE, NEW_USER, itAnswersGets, useInvitationsWorld } from '../test-support/invitations.ts';

const HOUR = 3_600_000;

const world = useInvitationsWorld();
const { invite, accept } = world;

describe('invitations, end to end over SMTP', () => {
  it('invite → mail arrives → accept → the new member signs in and acts in the tenant', async () => {
    const created = await invite('ada@example.test');
    expect(created.statusCode, created.body).toBe(201);
    const invitation = created.json();
    expect(invitation).toMatchObject({
      tenant_id: world.a.tenant.id,
      email: 'ada@example.test',
      status: 'PENDING',
      // Where the mail went: the SMTP server's host and port, never its URL's credentials.
      mail: { transport: 'smtp', destination: new URL(world.smtp.url).host },
    });
    expect(Date.parse(invitation.expires_at) - world.clock.now().getTime()).toBe(72 * HOUR);

    const mail = await world.smtp.message(1);
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
      tenant_id: world.a.tenant.id,
      role: 'ADMIN',
      user: { email: 'ada@example.test', first_name: 'Ada', last_name: 'Lovelace' },
    });

    // The link works once.
    expect((await accept({ token: secret, ...NEW_USER })).statusCode).toBe(404);

    const login = await world.server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: 'ada@example.test', password: NEW_USER.password },
    });
    expect(login.statusCode, login.body).toBe(200);
    const session = login.json<{ token: string }>().token;
    const tenant = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: asMember(session, world.a.tenant.id),
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const members = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/members',
      headers: asMember(session, world.a.tenant.id),
    });
    expect(members.statusCode, members.body).toBe(200);
    expect(members.json()).toMatchObject({
      pagination: { total_items: 2, page_number: 1, page_size: 20, total_pages: 1 },
    });
    const roles = members.json<{ data: Array<{ role: string; user: { email: string } }> }>().data;
    expect(roles.map((m) => [m.user.email, m.role])).toContainEqual(['ada@example.test', 'ADMIN']);
    expect(roles.map((m) => m.role)).toContain('OWNER');

    // The secret never reached the logs.
    expect(world.server.logs.text()).not.toContain(secret);
    expect(world.server.logs.text()).not.toContain(secret.slice(5));
  });

  it('after a resend only the newest link works', async () => {
    const { id } = (await invite('bob@example.test')).json<{ id: string }>();
    const first = acceptLinkOf((await world.smtp.message(1)).parsed).secret;
    world.clock.advance(10 * HOUR);
    const resent = await world.server.app.inject({
      method: 'POST',
      url: `/tenants/self/invitations/${id}/resend`,
      headers: withKey(world.a.admin.key),
    });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json()).toMatchObject({
      id,
      status: 'PENDING',
      mail: { transport: 'smtp', destination: new URL(world.smtp.url).host },
    });
    expect(Date.parse(resent.json<{ expires_at: string }>().expires_at)).toBe(
      world.clock.now().getTime() + 72 * HOUR,
    );
    const second = acceptLinkOf((await world.smtp.message(2)).parsed).secret;
    expect(second).not.toBe(first);

    const old = await accept({ token: first, ...NEW_USER });
    expect(old.statusCode).toBe(404);
    expect(old.headers['content-type']).toContain('application/problem+json');
    const fresh = await accept({ token: second, ...NEW_USER });
    expect(fresh.statusCode, fresh.body).toBe(201);
    expect(world.server.logs.text()).not.toContain(first);
    expect(world.server.logs.text()).not.toContain(second);
  });

  it('resend needs both tenant:invitation:create and tenant:invitation:update', async () => {
    const { id } = (await invite('carol@example.test')).json<{ id: string }>();
    const resendWith = async (permissions: string[]) => {
      const app = await createKey(world.server.services, world.a.tenant.id, 'management', permissions);
      return world.server.app.inject({
        method: 'POST',
        url: `/tenants/self/invitations/${id}/resend`,
        headers: withKey(app.key),
      });
    };
    expect((await resendWith(['tenant:invitation:create'])).statusCode).toBe(403);
    expect((await resendWith(['tenant:invitation:update'])).statusCode).toBe(403);
    expect((await resendWith(['tenant:invitation:create', 'tenant:invitation:update'])).statusCode).toBe(200);
    const spec = (await world.server.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>();
    expect(spec.paths['/tenants/self/invitations/{id}/resend']?.post?.['x-permissions']).toEqual([
      'tenant:invitation:create',
      'tenant:invitation:update',
    ]);
  });

  it('a deleted invitation is gone and its link stops working', async () => {
    const { id } = (await invite('dan@example.test')).json<{ id: string }>();
    const { secret } = acceptLinkOf((await world.smtp.message(1)).parsed);
    const url = `/tenants/self/invitations/${id}`;
    expect(
      (await world.server.app.inject({ method: 'GET', url, headers: withKey(world.a.admin.key) })).statusCode,
    ).toBe(200);
    const deleted = await world.server.app.inject({
      method: 'DELETE',
      url,
      headers: withKey(world.a.admin.key),
    });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    const gone = await world.server.app.inject({ method: 'GET', url, headers: withKey(world.a.admin.key) });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ detail: 'No such invitation.' });
    expect((await accept({ token: secret, ...NEW_USER })).statusCode).toBe(404);
    // A malformed id is a 404 like any other.
    const malformed = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations/not-a-uuid',
      headers: withKey(world.a.admin.key),
    });
    expect(malformed.statusCode).toBe(404);
    expect(malformed.json()).toMatchObject({ detail: 'No such invitation.' });
  });

  it('expiry is visible at once: EXPIRED in get and list, and the link is refused', async () => {
    const { id } = (await invite('erin@example.test')).json<{ id: string }>();
    const { secret } = acceptLinkOf((await world.smtp.message(1)).parsed);
    world.clock.advance(72 * HOUR + 1);
    const got = await world.server.app.inject({
      method: 'GET',
      url: `/tenants/self/invitations/${id}`,
      headers: withKey(world.a.admin.key),
    });
    expect(got.json()).toMatchObject({ id, status: 'EXPIRED' });
    const list = (status: string) =>
      world.server.app.inject({
        method: 'GET',
        url: `/tenants/self/invitations?status=${status}`,
        headers: withKey(world.a.admin.key),
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
    world.smtp.failing(true);
    const failed = await invite('fred@example.test');
    expect(failed.statusCode).toBe(502);
    expect(failed.headers['content-type']).toContain('application/problem+json');
    expect(failed.json()).toMatchObject({ status: 502, title: 'The e-mail could not be sent.' });
    const list = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations',
      headers: withKey(world.a.admin.key),
    });
    expect(list.json()).toMatchObject({ pagination: { total_items: 0 }, data: [] });
  });

  it('validates the invitation body and the accept body', async () => {
    expect((await invite('not an address')).statusCode).toBe(400);
    expect((await accept({})).statusCode).toBe(400);
    expect((await accept({ token: 'svci_nothing' })).statusCode).toBe(404);
    // An existing member's address → 409.
    expect((await invite(world.a.ownerEmail)).statusCode).toBe(409);
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
    const list = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations',
      headers: withKey(world.a.admin.key),
    });
    expect(list.json()).toMatchObject({ pagination: { total_items: 1 } });
  });
});

describe('pagination bounds', () => {
  const cases: Array<[string, number]> = [
    ['/tenants/self/invitations?size=0', 200],
    ['/tenants/self/invitations?size=101', 400],
    ['/tenants/self/invitations?size=100', 200],
    ['/tenants/self/invitations?page=0', 400],
  ];
  itAnswersGets(world, cases);

  it('defaults to page 1, size 20', async () => {
    const response = await world.server.app.inject({
      method: 'GET',
      url: '/tenants/self/invitations',
      headers: withKey(world.a.admin.key),
    });
    expect(response.json()).toMatchObject({ pagination: { page_number: 1, page_size: 20 } });
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
      tenancy: { mail: { kind: 'smtp', url: world.smtp.url, from: 'vault@example.test' } },
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
      const { link } = acceptLinkOf((await world.smtp.message(1)).parsed);
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

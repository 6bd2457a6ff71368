import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import {
  auditRows,
  codeOf,
  detailOf,
  fieldErrorsOf,
  openServicesFixture,
  seedTenant,
} from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { acceptLinkOf, closedPort, startSmtpSink } from '../test-support/smtp-sink.ts';
import type { SmtpSink } from '../test-support/smtp-sink.ts';
import { INVITATION_TTL_MS } from './invitations.ts';
import { FAST_KDF } from '../test-support/temp-vault.ts';

const BASE = 'http://127.0.0.1:8080/invitations/accept';

describe('invitations over a real SMTP server', () => {
  let smtp: SmtpSink;
  let f: ServicesFixture;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;
  let admin: Principal;

  beforeEach(async () => {
    smtp = await startSmtpSink();
    f = await openServicesFixture({
      tenancy: { mail: { kind: 'smtp', url: smtp.url, from: 'vault@example.com' }, acceptBaseUrl: BASE },
    });
    tenant = await seedTenant(f.services, 'Acme');
    admin = tenant.principal;
  });
  afterEach(async () => {
    await f.close();
    await smtp.close();
  });

  it('sends a two-part message whose link a new user accepts, becoming an ADMIN member who can sign in', async () => {
    const invitation = await f.services.invitations.create(admin, { email: ' New.Person@Example.com ' });
    expect(invitation).toMatchObject({ email: 'new.person@example.com', status: 'PENDING' });
    expect(invitation.expires_at).toBe(new Date(f.clock.now().getTime() + INVITATION_TTL_MS).toISOString());
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]?.parsed;
    expect(mail?.subject).toBe('Invitation to join a tenant on svc vault');
    expect(mail?.text).toContain('    "Acme"');
    expect(mail?.html).toContain(`${BASE}?token=`);
    const secret = acceptLinkOf(mail).secret;
    expect(mail?.text).toContain(`svc invitation accept ${secret}`);
    expect(mail?.html).toContain(secret);

    expect(
      await fieldErrorsOf(
        f.services.invitations.accept({ token: secret, first_name: 'New', password: 'short' }),
      ),
    ).toEqual({ last_name: ['is required'], password: ['must be at least 8 characters'] });

    const { member } = await f.services.invitations.accept({
      token: `${BASE}?token=${secret}`,
      first_name: 'New',
      last_name: 'Person',
      password: 'a good long password',
    });
    expect(member).toMatchObject({
      tenant_id: tenant.tenantId,
      role: 'ADMIN',
      user: { email: 'new.person@example.com', first_name: 'New', last_name: 'Person' },
    });
    // Consumed.
    expect(
      await codeOf(f.services.invitations.accept({ token: secret, password: 'a good long password' })),
    ).toBe('NOT_FOUND');
    expect(await codeOf(f.services.invitations.get(admin, invitation.id))).toBe('NOT_FOUND');

    const session = await f.services.auth.signIn(
      'new.person@example.com',
      'a good long password',
      '127.0.0.1',
    );
    const { principal } = await f.services.auth.authenticateSession(session.token, tenant.tenantId);
    expect(principal).toMatchObject({ kind: 'user', role: 'ADMIN', userId: member.user.id });
    if (!principal) throw new Error('no principal');
    const page = await f.services.members.list(principal, {}, { page: 1, size: 20 });
    expect(page.items.map((m) => [m.role, m.user.email])).toEqual([
      ['OWNER', tenant.ownerEmail],
      ['ADMIN', 'new.person@example.com'],
    ]);

    const rows = await auditRows(f.vault, tenant.tenantId);
    const accepted = rows.find((r) => r.message === 'Tenant invitation accepted');
    expect(accepted).toMatchObject({
      actor_id: member.user.id,
      actor_type: 'user',
      entity_id: invitation.id,
    });
    expect(rows.find((r) => r.entity_type === 'tenantMember' && r.entity_id === member.id)).toMatchObject({
      operation: 'create',
      actor_id: member.user.id,
    });
    // Link secrets never reach the audit log (nor the database in clear).
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain(secret.slice(5));
  });

  it('after a resend only the newest link works; after delete none does', async () => {
    const invitation = await f.services.invitations.create(admin, { email: 'bob@example.com' });
    const first = acceptLinkOf(smtp.received[0]?.parsed).secret;
    f.clock.advance(60 * 60 * 1000);
    const resent = await f.services.invitations.resend(admin, invitation.id);
    expect(resent.status).toBe('PENDING');
    expect(resent.expires_at).toBe(new Date(f.clock.now().getTime() + INVITATION_TTL_MS).toISOString());
    expect(smtp.received).toHaveLength(2);
    const second = acceptLinkOf(smtp.received[1]?.parsed).secret;
    expect(second).not.toBe(first);
    const input = { first_name: 'Bob', last_name: 'B', password: 'a good long password' };
    expect(await detailOf(f.services.invitations.accept({ token: first, ...input }))).toMatch(
      /^NOT_FOUND 404: This invitation link is not valid/,
    );

    await f.services.invitations.delete(admin, invitation.id);
    expect(await codeOf(f.services.invitations.accept({ token: second, ...input }))).toBe('NOT_FOUND');
    expect(await codeOf(f.services.invitations.accept({ token: 'garbage', ...input }))).toBe('NOT_FOUND');
  });

  it('expiry is derived from the clock: EXPIRED at once, accept refused, resend revives it', async () => {
    const invitation = await f.services.invitations.create(admin, { email: 'late@example.com' });
    const secret = acceptLinkOf(smtp.received[0]?.parsed).secret;
    f.clock.advance(INVITATION_TTL_MS);
    expect((await f.services.invitations.get(admin, invitation.id)).status).toBe('EXPIRED');
    expect(
      (await f.services.invitations.list(admin, { status: 'EXPIRED' }, { page: 1, size: 10 })).total,
    ).toBe(1);
    expect(
      (await f.services.invitations.list(admin, { status: 'PENDING' }, { page: 1, size: 10 })).total,
    ).toBe(0);
    const input = { first_name: 'L', last_name: 'Ate', password: 'a good long password' };
    expect(await detailOf(f.services.invitations.accept({ token: secret, ...input }))).toMatch(
      /^UNPROCESSABLE 422: .*expired/,
    );
    expect((await f.services.invitations.resend(admin, invitation.id)).status).toBe('PENDING');
    const { member } = await f.services.invitations.accept({
      token: acceptLinkOf(smtp.received[1]?.parsed).secret,
      ...input,
    });
    expect(member.role).toBe('ADMIN');
  });

  it('an existing user proves their password; a member’s e-mail is a CONFLICT', async () => {
    const other = await seedTenant(f.services, 'Other', 'carol@example.com', 'carol password 1');
    expect(other.ownerEmail).toBe('carol@example.com');
    expect(await codeOf(f.services.invitations.create(admin, { email: tenant.ownerEmail }))).toBe('CONFLICT');
    expect(await fieldErrorsOf(f.services.invitations.create(admin, { email: 'not an address' }))).toEqual({
      email: ['must be a valid e-mail address'],
    });
    const first = await f.services.invitations.create(admin, { email: 'Carol@example.com' });
    // Inviting the address again resends that invitation: same id, a new link; the old one stops working.
    const again = await f.services.invitations.create(admin, { email: 'carol@example.com' });
    expect(again.id).toBe(first.id);
    expect(smtp.received).toHaveLength(2);
    expect(
      await codeOf(
        f.services.invitations.accept({
          token: acceptLinkOf(smtp.received[0]?.parsed).secret,
          password: 'carol password 1',
        }),
      ),
    ).toBe('NOT_FOUND');
    const secret = acceptLinkOf(smtp.received[1]?.parsed).secret;
    expect(await codeOf(f.services.invitations.accept({ token: secret, password: 'wrong password!' }))).toBe(
      'UNAUTHENTICATED',
    );
    expect(await codeOf(f.services.invitations.accept({ token: secret }))).toBe('UNAUTHENTICATED');
    const { member } = await f.services.invitations.accept({ token: secret, password: 'carol password 1' });
    expect(member.user.id).toBe(other.ownerId);
    expect(await codeOf(f.services.invitations.create(admin, { email: 'carol@example.com' }))).toBe(
      'CONFLICT',
    );
  });

  it('accepting for an existing account shares its sign-in throttle: a link is no unlimited password oracle', async () => {
    const other = await seedTenant(f.services, 'Other', 'dave@example.com', 'dave password 1');
    await f.services.invitations.create(admin, { email: other.ownerEmail });
    const secret = acceptLinkOf(smtp.received[0]?.parsed).secret;
    for (let i = 0; i < 5; i++)
      expect(await codeOf(f.services.invitations.accept({ token: secret, password: `guess ${i}!` }))).toBe(
        'UNAUTHENTICATED',
      );
    expect(await codeOf(f.services.invitations.accept({ token: secret, password: 'dave password 1' }))).toBe(
      'RATE_LIMITED',
    );
    // The same account's sign-in waits too, and after the wait the right password works.
    expect(await codeOf(f.services.auth.signIn(other.ownerEmail, 'dave password 1', '192.0.2.1'))).toBe(
      'RATE_LIMITED',
    );
    f.clock.advance(1000);
    expect(await codeOf(f.services.invitations.accept({ token: secret, password: 'dave password 1' }))).toBe(
      'ok',
    );
  });

  it('pagination bounds and permissions', async () => {
    for (const size of [-1, 101]) {
      expect(await codeOf(f.services.invitations.list(admin, {}, { page: 1, size }))).toBe(
        'VALIDATION_FAILED',
      );
    }
    expect(await codeOf(f.services.invitations.list(admin, {}, { page: 0, size: 10 }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(f.services.invitations.list(admin, {}, { page: 1, size: 100 }))).toBe('ok');
    for (const size of [-1, 51]) {
      expect(await codeOf(f.services.members.list(admin, {}, { page: 1, size }))).toBe('VALIDATION_FAILED');
    }
    expect(await codeOf(f.services.members.list(admin, {}, { page: 0, size: 10 }))).toBe('VALIDATION_FAILED');
    expect(await codeOf(f.services.members.list(admin, {}, { page: 1, size: 50 }))).toBe('ok');

    const weak = await f.services.applications.create(admin, {
      name: 'reader',
      type: 'management',
      permissions: ['tenant:invitation:create', 'tenant:invitation:read'],
    });
    const weakPrincipal = await f.services.auth.authenticateApiKey(weak.key);
    if (!weakPrincipal) throw new Error('no principal');
    const inv = await f.services.invitations.create(weakPrincipal, { email: 'dave@example.com' });
    // Resend needs create AND update.
    expect(await codeOf(f.services.invitations.resend(weakPrincipal, inv.id))).toBe('FORBIDDEN');
    expect(await codeOf(f.services.invitations.delete(weakPrincipal, inv.id))).toBe('FORBIDDEN');
    expect(await codeOf(f.services.members.list(weakPrincipal, {}, { page: 1, size: 10 }))).toBe('FORBIDDEN');
    // Another tenant's invitation is NOT_FOUND.
    const other = await seedTenant(f.services, 'Other');
    expect(await codeOf(f.services.invitations.get(other.principal, inv.id))).toBe('NOT_FOUND');
  });

  it('a slow SMTP server holds no lock: the vault serves other writes while the mail is sent', async () => {
    const slow = smtp.hold();
    const creating = f.services.invitations.create(admin, { email: 'slow@example.com' });
    await slow.arrived;
    // The SMTP conversation is in progress: a write of its own still goes through.
    const app = await f.services.applications.create(admin, {
      name: 'while mailing',
      type: 'private',
      permissions: ['token:read'],
    });
    expect(app.name).toBe('while mailing');
    // The invitation is written only once its mail went out.
    expect(await f.vault.db.selectFrom('invitations').selectAll().execute()).toEqual([]);
    slow.release();
    const invitation = await creating;
    expect(invitation).toMatchObject({ email: 'slow@example.com', status: 'PENDING' });
    const { member } = await f.services.invitations.accept({
      token: acceptLinkOf(smtp.received[0]?.parsed).secret,
      first_name: 'Slow',
      last_name: 'S',
      password: 'a good long password',
    });
    expect(member.user.email).toBe('slow@example.com');
  });

  it('an invitation deleted while its mail was sent stays deleted; its link does not work', async () => {
    const inv = await f.services.invitations.create(admin, { email: 'gone@example.com' });
    const slow = smtp.hold();
    const resending = f.services.invitations.resend(admin, inv.id);
    await slow.arrived;
    await f.services.invitations.delete(admin, inv.id);
    slow.release();
    expect(await codeOf(resending)).toBe('NOT_FOUND');
    expect(await f.vault.db.selectFrom('invitations').selectAll().execute()).toEqual([]);
    const link = acceptLinkOf(smtp.received[1]?.parsed).secret;
    const input = { token: link, first_name: 'G', last_name: 'G', password: 'a good long password' };
    expect(await codeOf(f.services.invitations.accept(input))).toBe('NOT_FOUND');
  });

  it('a failing SMTP server fails create with MAIL_FAILED and leaves no invitation', async () => {
    const port = await closedPort();
    const { createServices } = await import('../services.ts');
    const broken = createServices(f.vault, {
      passwordKdf: FAST_KDF,
      tenancy: {
        mail: { kind: 'smtp', url: `smtp://127.0.0.1:${port}`, from: 'v@example.com' },
        acceptBaseUrl: BASE,
      },
    });
    const before = await auditRows(f.vault, tenant.tenantId);
    const detail = await detailOf(broken.invitations.create(admin, { email: 'eve@example.com' }));
    expect(detail).toMatch(
      /^MAIL_FAILED 502: The invitation e-mail could not be sent through smtp:\/\/127\.0\.0\.1:\d+ \(connect ECONNREFUSED .*\)\. No invitation was created\./,
    );
    expect(await f.vault.db.selectFrom('invitations').selectAll().execute()).toEqual([]);
    expect(await auditRows(f.vault, tenant.tenantId)).toEqual(before);

    // A resend that cannot be mailed leaves the invitation and its link as they were.
    const inv = await f.services.invitations.create(admin, { email: 'eve@example.com' });
    const secret = acceptLinkOf(smtp.received[0]?.parsed).secret;
    expect(await codeOf(broken.invitations.resend(admin, inv.id))).toBe('MAIL_FAILED');
    expect(await f.services.invitations.get(admin, inv.id)).toMatchObject({
      expires_at: inv.expires_at,
      modified_at: null,
    });
    const { member } = await f.services.invitations.accept({
      token: secret,
      first_name: 'Eve',
      last_name: 'E',
      password: 'a good long password',
    });
    expect(member.user.email).toBe('eve@example.com');
  });
});

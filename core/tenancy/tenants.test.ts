import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import {
  auditCount,
  auditRows,
  codeOf,
  fieldErrorsOf,
  openServicesFixture,
  seedTenant,
} from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import {
  EMBEDDED_OWNER_EMAIL,
  bootstrapEmbeddedDefault,
  listApplications,
  needsEmbeddedDefault,
} from './bootstrap.ts';
import { TENANT_SCOPED_TABLES } from './tenants.ts';
import { withRowMac } from '../integrity/row-authenticator.ts';

describe('tenant service', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    f = await openServicesFixture();
  });
  afterEach(() => f.close());

  it('creates tenant, new owner (OWNER member, owner_id) and a management application, all audited', async () => {
    const created = await f.services.tenants.create(
      { name: ' Acme ', ownerEmail: ' Owner@Example.COM ', ownerPassword: 'correct horse battery' },
      null,
    );
    const { tenant, owner, application } = created;
    expect(tenant).toMatchObject({ name: 'Acme', owner_id: owner?.id, settings: {}, created_by: null });
    expect(owner).toMatchObject({ email: 'owner@example.com', first_name: null, last_name: null });
    expect(application).toMatchObject({ name: 'Management', type: 'management', tenant_id: tenant.id });
    expect(application?.permissions).toContain('tenant:delete');
    const member = await f.vault.db.selectFrom('members').selectAll().executeTakeFirstOrThrow();
    expect(member).toMatchObject({ tenant_id: tenant.id, user_id: owner?.id, role: 'OWNER' });
    expect(
      (await auditRows(f.vault, tenant.id)).map((r) => [r.seq, r.entity_type, r.operation, r.actor_type]),
    ).toEqual([
      [1, 'tenant', 'create', 'operator'],
      [2, 'tenantMember', 'create', 'operator'],
      [3, 'application', 'create', 'operator'],
    ]);
    // The owner can sign in with the password given.
    const session = await f.services.auth.signIn('owner@example.com', 'correct horse battery', '127.0.0.1');
    expect(session.user_id).toBe(owner?.id);
  });

  it('reuses an existing owner without touching their password; a password-less owner cannot sign in', async () => {
    const first = await seedTenant(f.services, 'First', 'owner@example.com', 'original password');
    f.clock.advance(1000);
    const second = await f.services.tenants.create(
      { name: 'Second', ownerEmail: 'OWNER@example.com', ownerPassword: 'another password' },
      null,
    );
    expect(second.owner?.id).toBe(first.ownerId);
    await f.services.auth.signIn('owner@example.com', 'original password', '127.0.0.1');
    expect(await codeOf(f.services.auth.signIn('owner@example.com', 'another password', '127.0.0.1'))).toBe(
      'UNAUTHENTICATED',
    );
    expect((await f.services.tenants.listForUser(first.ownerId)).map((t) => t.name)).toEqual([
      'First',
      'Second',
    ]);

    const nopass = await f.services.tenants.create({ name: 'Third', ownerEmail: 'new@example.com' }, null);
    expect(nopass.owner?.email).toBe('new@example.com');
    expect(await codeOf(f.services.auth.signIn('new@example.com', 'anything at all', '127.0.0.2'))).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('creates without owner or application, and by owner user id (as the session route does)', async () => {
    const bare = await f.services.tenants.create({ name: 'Bare', withApplication: false }, null);
    expect(bare).toMatchObject({ owner: null, application: null, tenant: { owner_id: null } });
    const user = await f.services.users.create({ email: 'u@example.com', password: 'long enough' });
    const owned = await f.services.tenants.create(
      { name: 'Owned', ownerUserId: user.id, withApplication: false },
      null,
    );
    expect(owned.tenant.owner_id).toBe(user.id);
    expect(owned.owner).toEqual(user);
  });

  it.each([
    ['missing name', { name: '' }, 'name'],
    ['long name', { name: 'n'.repeat(201) }, 'name'],
    ['bad owner e-mail', { name: 'T', ownerEmail: 'not-an-email' }, 'ownerEmail'],
    [
      'short owner password',
      { name: 'T', ownerEmail: 'a@example.com', ownerPassword: 'short' },
      'ownerPassword',
    ],
    ['password without e-mail', { name: 'T', ownerPassword: 'long enough' }, 'ownerPassword'],
    ['both e-mail and id', { name: 'T', ownerEmail: 'a@example.com', ownerUserId: 'x' }, 'ownerUserId'],
    ['unknown owner id', { name: 'T', ownerUserId: '00000000-0000-4000-8000-000000000000' }, 'ownerUserId'],
  ])('refuses %s and creates nothing', async (_name, input, field) => {
    expect(Object.keys(await fieldErrorsOf(f.services.tenants.create(input, null)))).toContain(field);
    expect(await f.vault.db.selectFrom('tenants').selectAll().execute()).toEqual([]);
    expect(await f.vault.db.selectFrom('users').selectAll().execute()).toEqual([]);
    expect(await auditCount(f.vault)).toBe(0);
  });

  describe('with a tenant', () => {
    let admin: Principal;
    let tenantId: string;
    beforeEach(async () => {
      const seeded = await seedTenant(f.services);
      admin = seeded.principal;
      tenantId = seeded.tenantId;
    });

    it('gets the caller’s tenant and audits the read', async () => {
      const tenant = await f.services.tenants.get(admin);
      expect(tenant.id).toBe(tenantId);
      expect((await auditRows(f.vault, tenantId)).at(-1)).toMatchObject({
        entity_type: 'tenant',
        operation: 'read',
      });
    });

    it('updates the name; settings replace all when present and stay when omitted', async () => {
      const first = await f.services.tenants.update(admin, {
        name: 'Acme Ltd',
        settings: { deduplicate_tokens: 'true', fingerprint_tokens: 'false' },
      });
      expect(first.settings).toEqual({ deduplicate_tokens: 'true', fingerprint_tokens: 'false' });
      const kept = await f.services.tenants.update(admin, { name: 'Acme Inc' });
      expect(kept).toMatchObject({
        name: 'Acme Inc',
        settings: { deduplicate_tokens: 'true', fingerprint_tokens: 'false' },
      });
      const replaced = await f.services.tenants.update(admin, {
        name: 'Acme Inc',
        settings: { disable_ephemeral_proxy: 'true' },
      });
      expect(replaced.settings).toEqual({ disable_ephemeral_proxy: 'true' });
      expect((await f.services.tenants.update(admin, { name: 'Acme Inc', settings: {} })).settings).toEqual(
        {},
      );
      expect(await f.services.tenants.get(admin)).toMatchObject({ name: 'Acme Inc', settings: {} });
    });

    it.each([
      ['a line break (header or fake line)', 'Acme\r\nBcc: x@example.com'],
      ['a terminal escape', 'Acme\u001b[2J'],
      ['NUL', 'Acme\u0000'],
      ['a bidi override', 'Acme \u202Egnp.exe'],
      ['a zero-width space', 'Ac\u200Bme'],
      ['a line separator', 'Acme\u2028Reply with your password'],
    ])('refuses a name with %s on create and update; nothing changes', async (_what, name) => {
      expect(await fieldErrorsOf(f.services.tenants.update(admin, { name }))).toEqual({
        name: ['must not contain control or invisible formatting characters'],
      });
      expect(Object.keys(await fieldErrorsOf(f.services.tenants.create({ name }, null)))).toEqual(['name']);
      expect((await f.services.tenants.get(admin)).name).toBe('Acme');
      expect(await codeOf(f.services.tenants.update(admin, { name: 'Acme – Zürich 🚀' }))).toBe('ok');
    });

    it('refuses unknown settings (listing them) and values other than "true"/"false"; nothing changes', async () => {
      const before = await auditCount(f.vault);
      const errors = await fieldErrorsOf(
        f.services.tenants.update(admin, {
          name: 'Changed',
          settings: { deduplicate_tokens: 'yes', colour: 'blue', deduplicate_token: 'true' },
        }),
      );
      expect(errors['settings.deduplicate_tokens']).toEqual(['must be "true" or "false"']);
      expect(errors.settings?.[0]).toContain('"colour", "deduplicate_token"');
      expect(Object.keys(await fieldErrorsOf(f.services.tenants.update(admin, { name: '' })))).toEqual([
        'name',
      ]);
      expect(await auditCount(f.vault)).toBe(before);
      expect((await f.vault.db.selectFrom('tenants').select('name').executeTakeFirstOrThrow()).name).toBe(
        'Acme',
      );
    });

    it('FORBIDDEN without tenant permissions', async () => {
      const app = await f.services.applications.create(admin, {
        name: 'Logs',
        type: 'management',
        permissions: ['log:read'],
      });
      const auditor = await f.services.auth.authenticateApiKey(app.key);
      if (!auditor) throw new Error('no principal');
      expect(await codeOf(f.services.tenants.get(auditor))).toBe('FORBIDDEN');
      expect(await codeOf(f.services.tenants.update(auditor, { name: 'X' }))).toBe('FORBIDDEN');
      expect(await codeOf(f.services.tenants.delete(auditor))).toBe('FORBIDDEN');
    });

    it('delete removes every tenant row in one go and leaves one audit record; the chain verifies', async () => {
      const other = await seedTenant(f.services, 'Other');
      await f.services.applications.create(admin, {
        name: 'Backend',
        type: 'private',
        permissions: ['token:read'],
      });
      // A member who also belongs to another tenant, and a tenant key row.
      const session = await f.services.auth.signIn(other.ownerEmail, other.ownerPassword, '127.0.0.1');
      await f.vault.transaction(async (trx) => {
        await trx
          .insertInto('members')
          .values(
            withRowMac(f.vault, 'members', {
              id: randomUUID(),
              tenant_id: tenantId,
              user_id: other.ownerId,
              role: 'ADMIN',
              created_at: 'x',
              created_by: null,
              modified_at: null,
              modified_by: null,
            }),
          )
          .execute();
        await trx
          .insertInto('tenant_keys')
          .values({
            tenant_id: tenantId,
            purpose: 'data',
            term: 1,
            wrapped: new Uint8Array(8),
            created_at: 'x',
          })
          .execute();
      });
      expect((await f.services.applications.list(admin, {}, { page: 1, size: 10 })).total).toBe(2);

      await f.services.tenants.delete(admin);

      for (const table of TENANT_SCOPED_TABLES) {
        const rows = await f.vault.db
          .selectFrom(table)
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .execute();
        expect([table, rows.length]).toEqual([table, 0]);
      }
      expect(await f.vault.db.selectFrom('tenants').selectAll().where('id', '=', tenantId).execute()).toEqual(
        [],
      );
      const remaining = await auditRows(f.vault, tenantId);
      expect(remaining).toHaveLength(1);
      expect(remaining[0]).toMatchObject({
        seq: 1,
        entity_type: 'tenant',
        entity_id: tenantId,
        operation: 'delete',
        actor_type: 'application',
      });
      expect(await f.services.logs.verify()).toMatchObject({ ok: true });
      expect(await f.services.logs.verify(tenantId)).toMatchObject({ ok: true, entries: 1 });
      // The tenant's keys are dead; its users and the other tenant are not.
      expect(
        await f.services.auth.authenticateApiKey((await seedTenant(f.services, 'Third')).key),
      ).not.toBeNull();
      expect(await f.services.auth.authenticateApiKey(other.key)).not.toBeNull();
      expect(await f.services.users.findByEmail('owner-acme@example.com')).not.toBeNull();
      expect(await codeOf(f.services.auth.authenticateSession(session.token, tenantId))).toBe('FORBIDDEN');
      expect(
        (await f.services.auth.authenticateSession(session.token, other.tenantId)).principal,
      ).not.toBeNull();
      expect(await codeOf(f.services.tenants.get(admin))).toBe('NOT_FOUND');
    });

    it('lists a user’s tenants and all tenants, auditing each read', async () => {
      f.clock.advance(1000);
      const other = await seedTenant(f.services, 'Other');
      const owner = await f.services.users.findByEmail('owner-acme@example.com');
      expect((await f.services.tenants.listForUser(owner?.id ?? '')).map((t) => t.id)).toEqual([tenantId]);
      const all = await f.services.tenants.listAll();
      expect(all.map((t) => t.id)).toEqual([tenantId, other.tenantId]);
      const reads = (await auditRows(f.vault)).filter((r) => r.operation === 'read');
      expect(reads.map((r) => [r.tenant_id, r.actor_type])).toEqual(
        expect.arrayContaining([
          [tenantId, 'user'],
          [tenantId, 'operator'],
          [other.tenantId, 'operator'],
        ]),
      );
    });
  });

  it('bootstrap adds no Default tenant to a vault that already has tenants', async () => {
    await f.services.tenants.create({ name: 'Acme', withApplication: false }, null);
    expect(await bootstrapEmbeddedDefault(f.vault)).toBeNull();
    expect((await f.services.tenants.listAll()).map((t) => t.name)).toEqual(['Acme']);
  });

  it('bootstrap: tenant with an owner to claim and a management application, audited as the operator; once only', async () => {
    expect(await needsEmbeddedDefault(f.vault)).toBe(true);
    const result = await bootstrapEmbeddedDefault(f.vault);
    if (!result) throw new Error('expected a bootstrap');
    expect(await needsEmbeddedDefault(f.vault)).toBe(false);
    expect(result).toMatchObject({ ownerEmail: EMBEDDED_OWNER_EMAIL, ownerCanSignIn: false });
    expect(await bootstrapEmbeddedDefault(f.vault)).toBeNull();
    const principal = await f.services.auth.authenticateApiKey(result.apiKey);
    expect(principal).toMatchObject({
      kind: 'application',
      tenantId: result.tenantId,
      applicationType: 'management',
    });
    const owner = await f.services.users.findByEmail(EMBEDDED_OWNER_EMAIL);
    if (owner === null) throw new Error('expected an owner user');
    expect(await f.services.tenants.get(principal as Principal)).toMatchObject({
      name: 'Default',
      owner_id: owner.id,
    });
    expect(await f.services.members.owner(principal as Principal)).toMatchObject({
      role: 'OWNER',
      user: { id: owner.id },
    });
    // Nobody can sign in as the owner until it is claimed (svc user passwd).
    expect(
      await codeOf(f.services.auth.signIn(EMBEDDED_OWNER_EMAIL, 'any password at all', '127.0.0.1')),
    ).toBe('UNAUTHENTICATED');
    await f.services.users.setPassword(owner.id, 'claimed password 1');
    expect(
      await f.services.auth.signIn(EMBEDDED_OWNER_EMAIL, 'claimed password 1', '127.0.0.1'),
    ).toMatchObject({ token: expect.any(String) });
    expect((await listApplications(f.vault)).map((a) => a.id)).toEqual([result.applicationId]);
    const rows = await auditRows(f.vault, result.tenantId);
    expect(rows.map((r) => [r.entity_type, r.operation, r.actor_type, r.message])).toEqual([
      ['tenant', 'create', 'operator', 'Tenant created'],
      ['tenantMember', 'create', 'operator', 'Tenant member added (OWNER)'],
      ['application', 'create', 'operator', 'Application created'],
      ['tenant', 'read', 'application', 'Tenant read'],
      ['tenantMember', 'read', 'application', 'Tenant member read'],
      ['application', 'read', 'operator', 'Application read'],
    ]);
    expect(await f.services.logs.verify()).toMatchObject({ ok: true });
  });
});

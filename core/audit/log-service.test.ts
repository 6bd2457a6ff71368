import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import {
  auditCount,
  auditRows,
  codeOf,
  openServicesFixture,
  seedTenant,
} from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { appendAudit } from './audit-log.ts';

describe('audit log', () => {
  let f: ServicesFixture;
  let admin: Principal;
  let tenantId: string;

  beforeEach(async () => {
    f = await openServicesFixture();
    ({ principal: admin, tenantId } = await seedTenant(f.services));
  });
  afterEach(() => f.close());

  it('every operation writes its entry, in order, with the actor', async () => {
    const app = await f.services.applications.create(admin, {
      name: 'B',
      type: 'private',
      permissions: ['token:read'],
    });
    await f.services.applications.get(admin, app.id);
    await f.services.applications.update(admin, app.id, { name: 'B2', permissions: ['token:read'] });
    await f.services.applications.regenerate(admin, app.id);
    await f.services.applications.delete(admin, app.id);
    await f.services.tenants.get(admin);
    await f.services.tenants.update(admin, { name: 'Acme 2' });
    const actor = admin.kind === 'application' ? admin.applicationId : '';
    const rows = await auditRows(f.vault, tenantId);
    expect(rows.map((r) => [r.seq, r.entity_type, r.operation, r.message, r.actor_type, r.actor_id])).toEqual(
      [
        [1, 'tenant', 'create', 'Tenant created', 'operator', null],
        [2, 'tenantMember', 'create', 'Tenant member added (OWNER)', 'operator', null],
        [3, 'application', 'create', 'Application created', 'operator', null],
        [4, 'application', 'create', 'Application created', 'application', actor],
        [5, 'application', 'read', 'Application read', 'application', actor],
        [6, 'application', 'update', 'Application updated', 'application', actor],
        [7, 'application', 'update', 'Application key regenerated', 'application', actor],
        [8, 'application', 'delete', 'Application deleted', 'application', actor],
        [9, 'tenant', 'read', 'Tenant read', 'application', actor],
        [10, 'tenant', 'update', 'Tenant updated', 'application', actor],
      ],
    );
    expect(rows.slice(3, 8).every((r) => r.entity_id === app.id)).toBe(true);
    expect(await f.services.logs.verify(tenantId)).toEqual({
      ok: true,
      tenants: 1,
      entries: 10,
      firstBreak: null,
    });
  });

  it('a rolled-back operation leaves no entry', async () => {
    const app = await f.services.applications.create(admin, {
      name: 'B',
      type: 'private',
      permissions: ['token:read'],
    });
    const before = await auditCount(f.vault);
    // Fails inside its transaction, after the application was loaded and authorised.
    expect(
      await codeOf(f.services.applications.update(admin, app.id, { name: 'B', permissions: ['log:read'] })),
    ).toBe('VALIDATION_FAILED');
    // A transaction that appended an entry and then failed.
    await expect(
      f.vault.transaction(async (trx) => {
        await appendAudit(trx, f.vault, admin, {
          tenantId,
          entityType: 'application',
          entityId: app.id,
          operation: 'update',
          message: 'Application updated',
        });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await auditCount(f.vault)).toBe(before);
    expect(await f.services.logs.verify()).toMatchObject({ ok: true });
    // The chain continues from the last committed entry.
    await f.services.applications.get(admin, app.id);
    expect(await f.services.logs.verify()).toMatchObject({ ok: true });
  });

  describe('tampering', () => {
    /** A tenant with a chain of 6 entries to tamper with. */
    async function chain(name: string): Promise<string> {
      const { principal, tenantId: id } = await seedTenant(f.services, name);
      await f.services.tenants.get(principal);
      await f.services.tenants.get(principal);
      await f.services.tenants.update(principal, { name: `${name} 2` });
      expect((await auditRows(f.vault, id)).length).toBe(6);
      return id;
    }

    it('detects an edited, a deleted, a swapped entry and entries removed from the end', async () => {
      const edited = await chain('Edited');
      const deleted = await chain('Deleted');
      const swapped = await chain('Swapped');
      const truncated = await chain('Truncated');
      const untouched = await chain('Untouched');
      await f.vault.transaction(async (trx) => {
        const where = (t: string, seq: number) =>
          trx.updateTable('audit_logs').where('tenant_id', '=', t).where('seq', '=', seq);
        await where(edited, 3).set({ message: 'Nothing to see here' }).execute();
        await trx.deleteFrom('audit_logs').where('tenant_id', '=', deleted).where('seq', '=', 4).execute();
        // Swap entries 2 and 3 (positions exchanged, each keeping its own MAC).
        await where(swapped, 2).set({ seq: -1 }).execute();
        await where(swapped, 3).set({ seq: 2 }).execute();
        await where(swapped, -1).set({ seq: 3 }).execute();
        await trx.deleteFrom('audit_logs').where('tenant_id', '=', truncated).where('seq', '>=', 5).execute();
      });
      const report = async (t: string) => (await f.services.logs.verify(t)).firstBreak;
      expect(await report(edited)).toMatchObject({ seq: 3, reason: 'its contents were altered' });
      expect(await report(deleted)).toMatchObject({ seq: 4, reason: expect.stringContaining('missing') });
      expect(await report(swapped)).toMatchObject({ seq: 2 });
      expect(await report(truncated)).toMatchObject({ seq: 5, reason: expect.stringContaining('removed') });
      expect(await report(untouched)).toBeNull();
      const all = await f.services.logs.verify();
      expect(all.ok).toBe(false);
    });
  });

  it('lists newest first with filters and pages; FORBIDDEN without log:read', async () => {
    const app = await f.services.applications.create(admin, {
      name: 'B',
      type: 'private',
      permissions: ['token:read'],
    });
    f.clock.advance(60_000);
    const cut = f.clock.now().toISOString();
    await f.services.applications.get(admin, app.id);
    const page = await f.services.logs.list(admin, {}, { page: 1, size: 2 });
    expect(page.total).toBe(5);
    expect(page.items.map((e) => e.operation)).toEqual(['read', 'create']);
    expect(page.items[0]).not.toHaveProperty('hash');
    const byEntity = await f.services.logs.list(
      admin,
      { entityType: 'application', entityId: app.id },
      { page: 1, size: 10 },
    );
    expect(byEntity.items.map((e) => e.operation)).toEqual(['read', 'create']);
    expect((await f.services.logs.list(admin, { startDate: cut }, { page: 1, size: 10 })).total).toBe(1);
    expect((await f.services.logs.list(admin, { endDate: cut }, { page: 1, size: 10 })).total).toBe(4);
    expect(await codeOf(f.services.logs.list(admin, { startDate: 'yesterday' }, { page: 1, size: 10 }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(f.services.logs.list(admin, {}, { page: 1, size: 10_001 }))).toBe(
      'VALIDATION_FAILED',
    );
    // Reading the log is not logged.
    expect((await f.services.logs.list(admin, {}, { page: 1, size: 10 })).total).toBe(5);
    const types = await f.services.logs.entityTypes(admin);
    expect(types).toContainEqual({ display_name: 'TenantMember', value: 'tenantMember' });

    const other = await f.services.applications.create(admin, {
      name: 'T',
      type: 'management',
      permissions: ['tenant:read'],
    });
    const reader = await f.services.auth.authenticateApiKey(other.key);
    if (!reader) throw new Error('no principal');
    expect(await codeOf(f.services.logs.list(reader, {}, { page: 1, size: 10 }))).toBe('FORBIDDEN');
    expect(await codeOf(f.services.logs.entityTypes(reader))).toBe('FORBIDDEN');
  });

  it('names each actor when read: application, member e-mail, operator; null once gone', async () => {
    const seeded = await seedTenant(f.services, 'Named', 'ada@example.com');
    const owner = seeded.principal;
    // A member, through a console session.
    const session = await f.services.auth.signIn('ada@example.com', seeded.ownerPassword, '127.0.0.1');
    const { principal: member } = await f.services.auth.authenticateSession(session.token, seeded.tenantId);
    if (!member) throw new Error('no principal');
    await f.services.tenants.get(member);
    // An application that acts, is renamed, and one that acts and is deleted.
    const shop = await f.services.applications.create(owner, {
      name: 'Shop',
      type: 'management',
      permissions: ['tenant:read'],
    });
    const gone = await f.services.applications.create(owner, {
      name: 'Gone',
      type: 'management',
      permissions: ['tenant:read'],
    });
    for (const key of [shop.key, gone.key]) {
      const principal = await f.services.auth.authenticateApiKey(key);
      if (!principal) throw new Error('no principal');
      await f.services.tenants.get(principal);
    }
    await f.services.applications.update(owner, shop.id, { name: 'Shop 2', permissions: ['tenant:read'] });
    await f.services.applications.delete(owner, gone.id);
    // Another tenant's application never lends its name to this tenant's log.
    await f.vault.transaction((trx) =>
      appendAudit(trx, f.vault, admin, {
        tenantId: seeded.tenantId,
        entityType: 'tenant',
        entityId: seeded.tenantId,
        operation: 'read',
        message: 'Tenant read',
      }),
    );

    const { items } = await f.services.logs.list(owner, { entityType: 'tenant' }, { page: 1, size: 100 });
    const ownerApp = owner.kind === 'application' ? owner.applicationId : '';
    const named = (actorId: string | null) =>
      items.filter((e) => e.actor_id === actorId).map((e) => [e.actor_type, e.actor_name]);
    expect(named(seeded.ownerId)).toEqual([['user', 'ada@example.com']]);
    expect(named(shop.id)).toEqual([['application', 'Shop 2']]);
    expect(named(gone.id)).toEqual([['application', null]]);
    expect(named(null)).toEqual([['operator', 'operator']]);
    expect(named(admin.kind === 'application' ? admin.applicationId : '')).toEqual([['application', null]]);
    const owners = await f.services.logs.list(owner, { actorId: ownerApp }, { page: 1, size: 100 });
    expect(owners.items.every((e) => e.actor_name === 'Management')).toBe(true);

    // A user row changed outside the vault names nobody; the log stays readable.
    await f.vault.transaction((trx) =>
      trx
        .updateTable('users')
        .set({ email: 'mallory@example.com' })
        .where('id', '=', seeded.ownerId)
        .execute(),
    );
    const after = await f.services.logs.list(owner, { actorId: seeded.ownerId }, { page: 1, size: 100 });
    expect(after.items.map((e) => e.actor_name)).toEqual([null]);
  });

  it('only the own tenant’s entries are listed', async () => {
    const other = await seedTenant(f.services, 'Other');
    const mine = await f.services.logs.list(admin, {}, { page: 1, size: 100 });
    expect(mine.items.every((e) => e.tenant_id === tenantId)).toBe(true);
    const theirs = await f.services.logs.list(other.principal, {}, { page: 1, size: 100 });
    expect(theirs.items.every((e) => e.tenant_id === other.tenantId)).toBe(true);
  });

  it('never records keys, passwords or session tokens', async () => {
    const secrets: string[] = [];
    const seeded = await seedTenant(f.services, 'Secretive', 'secret@example.com', 'hunter2 hunter2');
    secrets.push(seeded.key, seeded.ownerPassword);
    const app = await f.services.applications.create(seeded.principal, {
      name: 'S',
      type: 'private',
      permissions: ['token:read'],
    });
    secrets.push(app.key, (await f.services.applications.regenerate(seeded.principal, app.id)).key);
    await f.services.users.setPassword(seeded.ownerId, 'another secret pw');
    secrets.push('another secret pw');
    const session = await f.services.auth.signIn('secret@example.com', 'another secret pw', '127.0.0.1');
    secrets.push(session.token);
    const { principal } = await f.services.auth.authenticateSession(session.token, seeded.tenantId);
    if (!principal) throw new Error('no principal');
    await f.services.tenants.update(principal, { name: 'Renamed', settings: { deduplicate_tokens: 'true' } });
    await f.services.applications.list(principal, {}, { page: 1, size: 10 });
    await f.services.tenants.delete(principal);
    await codeOf(f.services.auth.signIn('secret@example.com', 'a wrong guess', '127.0.0.1'));

    const everything = JSON.stringify(await f.vault.db.selectFrom('audit_logs').selectAll().execute());
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toContain('a wrong guess');
  });
});

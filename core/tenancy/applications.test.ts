import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import type { ApplicationInput } from './contract.ts';
import {
  auditCount,
  auditRows,
  codeOf,
  createExpiringApplication,
  fieldErrorsOf,
  openServicesFixture,
  seedTenant,
} from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';

const rule = (priority: number, container: string, permissions: string[]): AccessRule => ({
  description: `rule ${priority}`,
  priority,
  container,
  permissions,
  transform: 'mask',
});

describe('application service', () => {
  let f: ServicesFixture;
  let admin: Principal;
  let tenantId: string;

  beforeEach(async () => {
    f = await openServicesFixture();
    const seeded = await seedTenant(f.services);
    admin = seeded.principal;
    tenantId = seeded.tenantId;
  });
  afterEach(() => f.close());

  const backend: ApplicationInput = {
    name: 'Backend',
    type: 'private',
    permissions: ['token:read'],
    rules: [rule(1, '/pci/', ['token:read', 'token:use'])],
  };

  it('creates an application whose key authenticates with its grants', async () => {
    const app = await f.services.applications.create(admin, backend);
    expect(app).toMatchObject({
      tenant_id: tenantId,
      name: 'Backend',
      type: 'private',
      permissions: ['token:read'],
    });
    expect(app.rules).toEqual(backend.rules);
    expect(app.key).toMatch(/^key_[0-9A-Za-z]{40}$/);
    expect(app.created_by).toBe(admin.kind === 'application' ? admin.applicationId : null);
    const principal = await f.services.auth.authenticateApiKey(app.key);
    expect(principal).toEqual({
      kind: 'application',
      tenantId,
      applicationId: app.id,
      applicationType: 'private',
      permissions: ['token:read'],
      rules: backend.rules,
      canCreateExpiringApplications: false,
    });
    // Only the keyed hash is stored.
    const row = await f.vault.db
      .selectFrom('applications')
      .selectAll()
      .where('id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(Object.values(row).some((v) => typeof v === 'string' && v.includes(app.key))).toBe(false);
    expect(await f.services.applications.get(admin, app.id)).not.toHaveProperty('key');
  });

  it('stores plain-permission applications with null rules and reads them back as []', async () => {
    const app = await f.services.applications.create(admin, {
      name: 'Collector',
      type: 'public',
      permissions: ['token:create'],
    });
    const row = await f.vault.db
      .selectFrom('applications')
      .select('rules')
      .where('id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(row.rules).toBeNull();
    expect((await f.services.applications.get(admin, app.id)).rules).toEqual([]);
  });

  it.each([
    ['missing name', { name: '  ', type: 'private', permissions: ['token:read'] }, 'name'],
    ['name over 200', { name: 'x'.repeat(201), type: 'private', permissions: ['token:read'] }, 'name'],
    ['unknown type', { name: 'A', type: 'desktop', permissions: ['token:read'] }, 'type'],
    ['nothing granted', { name: 'A', type: 'private' }, 'permissions'],
    ['public app reading', { name: 'A', type: 'public', permissions: ['token:read'] }, 'permissions[0]'],
    [
      'public rule reading',
      { name: 'A', type: 'public', rules: [rule(1, '/a/', ['token:read'])] },
      'rules[0].permissions[0]',
    ],
    [
      'private app managing',
      { name: 'A', type: 'private', permissions: ['application:create'] },
      'permissions[0]',
    ],
    [
      'management app touching tokens',
      { name: 'A', type: 'management', permissions: ['token:read'] },
      'permissions[0]',
    ],
    [
      'management app with rules',
      { name: 'A', type: 'management', permissions: ['log:read'], rules: [rule(1, '/', ['token:read'])] },
      'rules',
    ],
    ['unknown permission', { name: 'A', type: 'private', permissions: ['token:fly'] }, 'permissions[0]'],
    ['permissions not an array', { name: 'A', type: 'private', permissions: 'token:read' }, 'permissions'],
    [
      'rule without priority',
      {
        name: 'A',
        type: 'private',
        rules: [{ container: '/a/', permissions: ['token:read'], transform: 'mask' }],
      },
      'rules[0].priority',
    ],
    [
      'rule with a bad container',
      { name: 'A', type: 'private', rules: [rule(1, 'pci', ['token:read'])] },
      'rules[0].container',
    ],
    [
      'rule with a bad transform',
      { name: 'A', type: 'private', rules: [{ ...rule(1, '/a/', ['token:read']), transform: 'show' }] },
      'rules[0].transform',
    ],
  ])('refuses %s with VALIDATION_FAILED on %s and changes nothing', async (_name, input, field) => {
    const before = await auditCount(f.vault);
    const errors = await fieldErrorsOf(
      f.services.applications.create(admin, input as unknown as ApplicationInput),
    );
    expect(Object.keys(errors)).toContain(field);
    expect(await auditCount(f.vault)).toBe(before);
    expect((await f.vault.db.selectFrom('applications').selectAll().execute()).length).toBe(1);
  });

  it('lists with filters and pages, one audit entry per returned application', async () => {
    // Same-millisecond rows are ordered by id; distinct times keep the expected order fixed.
    f.clock.advance(1000);
    const a = await f.services.applications.create(admin, backend);
    f.clock.advance(1000);
    const b = await f.services.applications.create(admin, {
      name: 'Collector',
      type: 'public',
      permissions: ['token:create'],
    });
    const all = await f.services.applications.list(admin, {}, { page: 1, size: 10 });
    expect(all.total).toBe(3);
    expect(all.items.map((x) => x.name)).toEqual(['Management', 'Backend', 'Collector']);
    const page2 = await f.services.applications.list(admin, {}, { page: 2, size: 2 });
    expect(page2.items.map((x) => x.id)).toEqual([b.id]);
    expect(
      (await f.services.applications.list(admin, { types: ['private'] }, { page: 1, size: 10 })).items,
    ).toHaveLength(1);
    const twoTypes = await f.services.applications.list(
      admin,
      { types: ['private', 'public'] },
      { page: 1, size: 10 },
    );
    expect(twoTypes.items.map((x) => x.name).sort()).toEqual(['Backend', 'Collector']);
    const byIds = await f.services.applications.list(admin, { ids: [a.id, b.id] }, { page: 1, size: 10 });
    expect(byIds.items.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect(await codeOf(f.services.applications.list(admin, {}, { page: 0, size: 10 }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(f.services.applications.list(admin, {}, { page: 1, size: 101 }))).toBe(
      'VALIDATION_FAILED',
    );
    const before = await auditCount(f.vault);
    await f.services.applications.list(admin, {}, { page: 1, size: 2 });
    const reads = (await auditRows(f.vault, tenantId)).slice(before);
    expect(reads.map((r) => [r.entity_type, r.operation])).toEqual([
      ['application', 'read'],
      ['application', 'read'],
    ]);
  });

  it('updates name and grants as a full replacement; the type cannot change', async () => {
    const app = await f.services.applications.create(admin, backend);
    f.clock.advance(5000);
    const updated = await f.services.applications.update(admin, app.id, {
      name: 'Backend v2',
      permissions: ['token:search'],
    });
    expect(updated).toMatchObject({
      name: 'Backend v2',
      type: 'private',
      permissions: ['token:search'],
      rules: [],
    });
    expect(updated.modified_at).toBe(f.clock.now().toISOString());
    // The key is unchanged and now carries the new grants.
    expect(await f.services.auth.authenticateApiKey(app.key)).toMatchObject({
      permissions: ['token:search'],
      rules: [],
    });

    const before = await auditCount(f.vault);
    const typeChange = { name: 'X', type: 'management', permissions: ['log:read'] } as unknown as Parameters<
      typeof f.services.applications.update
    >[2];
    expect(
      Object.keys(await fieldErrorsOf(f.services.applications.update(admin, app.id, typeChange))),
    ).toContain('type');
    expect(
      Object.keys(await fieldErrorsOf(f.services.applications.update(admin, app.id, { name: 'X' }))),
    ).toEqual(['permissions']);
    expect(await auditCount(f.vault)).toBe(before);
    expect((await f.services.applications.get(admin, app.id)).name).toBe('Backend v2');
  });

  it('regenerate replaces the key: the old one fails at once', async () => {
    const app = await f.services.applications.create(admin, backend);
    const again = await f.services.applications.regenerate(admin, app.id);
    expect(again.key).not.toBe(app.key);
    expect(again.id).toBe(app.id);
    expect(await f.services.auth.authenticateApiKey(app.key)).toBeNull();
    expect(await f.services.auth.authenticateApiKey(again.key)).toMatchObject({ applicationId: app.id });
    const last = (await auditRows(f.vault, tenantId)).at(-1);
    expect(last).toMatchObject({
      entity_type: 'application',
      entity_id: app.id,
      operation: 'update',
      message: 'Application key regenerated',
    });
  });

  it('delete removes the application and its key', async () => {
    const app = await f.services.applications.create(admin, backend);
    await f.services.applications.delete(admin, app.id);
    expect(await f.services.auth.authenticateApiKey(app.key)).toBeNull();
    expect(await codeOf(f.services.applications.get(admin, app.id))).toBe('NOT_FOUND');
    expect(await codeOf(f.services.applications.delete(admin, app.id))).toBe('NOT_FOUND');
  });

  it("another tenant's application is NOT_FOUND, exactly like a missing one, and stays untouched", async () => {
    const other = await seedTenant(f.services, 'Other');
    const theirs = await f.services.applications.create(other.principal, backend);
    const before = await auditCount(f.vault);
    // Each call starts only when the previous one has settled, so no rejection waits unhandled.
    for (const call of [
      () => f.services.applications.get(admin, theirs.id),
      () =>
        f.services.applications.update(admin, theirs.id, { name: 'Mine now', permissions: ['token:read'] }),
      () => f.services.applications.regenerate(admin, theirs.id),
      () => f.services.applications.delete(admin, theirs.id),
      () => f.services.applications.get(admin, '00000000-0000-4000-8000-000000000000'),
    ]) {
      expect(await codeOf(call())).toBe('NOT_FOUND');
    }
    expect(await auditCount(f.vault)).toBe(before);
    expect(await f.services.auth.authenticateApiKey(theirs.key)).toMatchObject({ applicationId: theirs.id });
    const listed = await f.services.applications.list(admin, { ids: [theirs.id] }, { page: 1, size: 10 });
    expect(listed).toEqual({ total: 0, items: [] });
  });

  it('FORBIDDEN without the permission, whatever the id', async () => {
    const logsOnly = await f.services.applications.create(admin, {
      name: 'Auditor',
      type: 'management',
      permissions: ['log:read'],
    });
    const auditor = await f.services.auth.authenticateApiKey(logsOnly.key);
    if (!auditor) throw new Error('no principal');
    const app = await f.services.applications.create(admin, backend);
    const before = await auditCount(f.vault);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['create', () => f.services.applications.create(auditor, backend)],
      ['list', () => f.services.applications.list(auditor, {}, { page: 1, size: 10 })],
      ['get', () => f.services.applications.get(auditor, app.id)],
      ['get missing', () => f.services.applications.get(auditor, 'nope')],
      [
        'update',
        () => f.services.applications.update(auditor, app.id, { name: 'X', permissions: ['token:read'] }),
      ],
      ['regenerate', () => f.services.applications.regenerate(auditor, app.id)],
      ['delete', () => f.services.applications.delete(auditor, app.id)],
    ];
    for (const [name, call] of calls) expect([name, await codeOf(call())]).toEqual([name, 'FORBIDDEN']);
    expect(await auditCount(f.vault)).toBe(before);
    // Reading itself needs no permission: "who am I" answers any application.
    expect(await f.services.applications.getSelf(auditor)).toMatchObject({ id: logsOnly.id });
  });

  it('getSelf returns the calling application; other principals have none', async () => {
    if (admin.kind !== 'application') throw new Error('expected an application');
    expect((await f.services.applications.getSelf(admin)).id).toBe(admin.applicationId);
    expect(await codeOf(f.services.applications.getSelf({ kind: 'operator', tenantId }))).toBe('NOT_FOUND');
  });

  it('members and the operator manage applications too, audited as themselves', async () => {
    const operator: Principal = { kind: 'operator', tenantId };
    const app = await f.services.applications.create(operator, backend);
    expect(app.created_by).toBeNull();
    expect(
      await codeOf(f.services.applications.create({ kind: 'operator', tenantId: 'gone' }, backend)),
    ).toBe('NOT_FOUND');
    const session = await f.services.auth.signIn(
      'owner-acme@example.com',
      'correct horse battery',
      '127.0.0.1',
    );
    const { principal: member } = await f.services.auth.authenticateSession(session.token, tenantId);
    if (!member) throw new Error('no member principal');
    const renamed = await f.services.applications.update(member, app.id, {
      name: 'Renamed',
      permissions: ['token:read'],
    });
    expect(renamed.modified_by).toBe(session.user_id);
    const actors = (await auditRows(f.vault, tenantId)).slice(-2).map((r) => [r.actor_type, r.actor_id]);
    expect(actors).toEqual([
      ['operator', null],
      ['user', session.user_id],
    ]);
  });
});

describe('granting is bounded by what the caller holds', () => {
  let f: ServicesFixture;
  let admin: Principal;

  beforeEach(async () => {
    f = await openServicesFixture();
    admin = (await seedTenant(f.services)).principal;
  });
  afterEach(() => f.close());

  /** A management key with exactly these permissions, as its principal. */
  async function keyWith(...permissions: string[]): Promise<{ id: string; principal: Principal }> {
    const app = await f.services.applications.create(admin, {
      name: `holds ${permissions.join(' ')}`,
      type: 'management',
      permissions,
    });
    const principal = await f.services.auth.authenticateApiKey(app.key);
    if (!principal) throw new Error('the new key does not authenticate');
    return { id: app.id, principal };
  }

  const revealAll: ApplicationInput = {
    name: 'Reveal all',
    type: 'private',
    permissions: [],
    rules: [{ ...rule(1, '/', ['token:read']), transform: 'reveal' }],
  };

  it('a key with only application:create cannot create a stronger management app or a reveal-all app', async () => {
    const { principal } = await keyWith('application:create');
    const before = await f.vault.db.selectFrom('applications').select('id').execute();
    expect(
      await codeOf(
        f.services.applications.create(principal, {
          name: 'Wrecker',
          type: 'management',
          permissions: ['application:create', 'tenant:delete'],
        }),
      ),
    ).toBe('FORBIDDEN');
    expect(await codeOf(f.services.applications.create(principal, revealAll))).toBe('FORBIDDEN');
    expect(
      await codeOf(
        f.services.applications.create(principal, {
          name: 'P',
          type: 'private',
          permissions: ['token:read'],
        }),
      ),
    ).toBe('FORBIDDEN');
    expect(await f.vault.db.selectFrom('applications').select('id').execute()).toHaveLength(before.length);
    // What it holds it may pass on.
    const peer = await f.services.applications.create(principal, {
      name: 'Peer',
      type: 'management',
      permissions: ['application:create'],
    });
    expect(peer.permissions).toEqual(['application:create']);
  });

  it('an application cannot widen (or otherwise change) its own grants, but may rename itself', async () => {
    const { id, principal } = await keyWith('application:update', 'application:read');
    const widen = { name: 'Me', permissions: ['application:update', 'application:read', 'tenant:delete'] };
    expect(await codeOf(f.services.applications.update(principal, id, widen))).toBe('FORBIDDEN');
    expect(
      await codeOf(
        f.services.applications.update(principal, id, { name: 'Me', permissions: ['application:read'] }),
      ),
    ).toBe('FORBIDDEN');
    const renamed = await f.services.applications.update(principal, id, {
      name: 'Renamed',
      permissions: ['application:read', 'application:update'],
    });
    expect(renamed.name).toBe('Renamed');
    // Even the tenant's administrator key cannot change its own grants.
    if (admin.kind !== 'application') throw new Error('expected an application principal');
    expect(
      await codeOf(
        f.services.applications.update(admin, admin.applicationId, {
          name: 'Admin',
          permissions: ['log:read'],
        }),
      ),
    ).toBe('FORBIDDEN');
  });

  it('a key with application:update cannot widen another app or take over a stronger one by regenerating its key', async () => {
    const { principal } = await keyWith('application:update');
    const other = await keyWith('log:read');
    expect(
      await codeOf(
        f.services.applications.update(principal, other.id, {
          name: 'Other',
          permissions: ['log:read', 'tenant:delete'],
        }),
      ),
    ).toBe('FORBIDDEN');
    expect(await codeOf(f.services.applications.regenerate(principal, other.id))).toBe('FORBIDDEN');
    const weaker = await keyWith('application:update');
    expect(await codeOf(f.services.applications.regenerate(principal, weaker.id))).toBe('ok');
  });

  it('the administrator key, members and the operator may grant token access', async () => {
    expect((await f.services.applications.create(admin, revealAll)).rules).toHaveLength(1);
    const operator: Principal = { kind: 'operator', tenantId: admin.tenantId };
    expect(await codeOf(f.services.applications.create(operator, revealAll))).toBe('ok');
  });

  it('an expiring application: its key stops at expires_at, the sweep then removes it with an audit entry', async () => {
    const { creator, expiring } = await createExpiringApplication(f, admin, 30_000);
    expect(expiring.expires_at).toBe(new Date(f.clock.now().getTime() + 30_000).toISOString());
    expect(await f.services.auth.authenticateApiKey(expiring.key)).not.toBeNull();
    expect(await f.services.applications.sweepExpired()).toBe(0);
    f.clock.advance(30_000);
    expect(await f.services.auth.authenticateApiKey(expiring.key)).toBeNull();
    expect(await f.services.applications.sweepExpired()).toBe(1);
    expect(await codeOf(f.services.applications.get(admin, expiring.id))).toBe('NOT_FOUND');
    const entries = (await auditRows(f.vault, expiring.tenant_id)).filter((e) => e.entity_id === expiring.id);
    expect(entries.map((e) => [e.operation, e.actor_id])).toEqual([
      ['create', creator.id],
      ['delete', null],
    ]);
    // The creator is untouched.
    expect(await f.services.auth.authenticateApiKey(creator.key)).not.toBeNull();
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import {
  createKey,
  createLoneUser,
  createTenantFixture,
  signIn,
  withKey,
  type TenantFixture,
} from '../test-support/identity.ts';
import { KNOWN_SETTINGS, SETTING_DEFAULTS, SETTING_DESCRIPTIONS } from '../../core/tenancy/settings.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  return () => server.dispose();
});

describe('/tenants/self', () => {
  it('leaves owner_id out for a tenant without an owner (never null)', async () => {
    const bare = await server.services.tenants.create({ name: 'Bare', withApplication: true }, null);
    expect(bare.tenant.owner_id).toBeNull();
    const response = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(bare.application?.key ?? ''),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: bare.tenant.id, name: 'Bare' });
    expect(Object.keys(response.json() as object)).not.toContain('owner_id');
  });

  it('GET answers the tenant of the key', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(a.admin.key),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: a.tenant.id,
      owner_id: a.owner.id,
      name: 'Tenant A',
      settings: expect.any(Object),
      created_by: a.tenant.created_by,
      created_at: a.tenant.created_at,
      modified_by: null,
      modified_at: null,
    });
  });

  it('PUT renames and replaces settings; omitted settings stay', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const put = (payload: unknown) =>
      server.app.inject({
        method: 'PUT',
        url: '/tenants/self',
        headers: withKey(a.admin.key),
        payload: payload as Record<string, unknown>,
      });
    const first = await put({ name: 'Acme', settings: { deduplicate_tokens: 'true' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      id: a.tenant.id,
      name: 'Acme',
      settings: { deduplicate_tokens: 'true' },
      modified_by: a.admin.id,
      modified_at: expect.any(String),
    });
    const second = await put({ name: 'Acme 2' });
    expect(second.json()).toMatchObject({ name: 'Acme 2', settings: { deduplicate_tokens: 'true' } });

    const tooLong = await put({ name: 'n'.repeat(201) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: { name: expect.any(Array) } });
    const noName = await put({ settings: {} });
    expect(noName.json()).toMatchObject({ errors: { name: ['is required'] } });
    const badSetting = await put({
      name: 'x',
      settings: { deduplicate_tokens: 'true', other: { nested: 1 } },
    });
    expect(badSetting.statusCode).toBe(400);
    expect(badSetting.json()).toMatchObject({ errors: { 'settings.other': expect.any(Array) } });
    // Settings are strings: a JSON boolean is refused, not turned into "true".
    const booleanSetting = await put({ name: 'x', settings: { deduplicate_tokens: true } });
    expect(booleanSetting.statusCode).toBe(400);
    expect(booleanSetting.json()).toMatchObject({
      errors: { 'settings.deduplicate_tokens': ['must be string'] },
    });
    // `null` settings means "not given": the name changes, the settings stay.
    const nullSettings = await put({ name: 'Acme 3', settings: null });
    expect(nullSettings.statusCode).toBe(200);
    expect(nullSettings.json()).toMatchObject({ name: 'Acme 3', settings: { deduplicate_tokens: 'true' } });
    // Tenant B is untouched.
    const other = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(b.admin.key),
    });
    expect(other.json()).toMatchObject({ name: 'Tenant B' });
  });

  it("publishes every setting the vault understands in the tenant's schema, with its default", async () => {
    const response = await server.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const ok = document.paths['/tenants/self']?.['get']?.responses['200'] as {
      content: { 'application/json': { schema: { properties: { settings: unknown } } } };
    };
    const settings = ok.content['application/json'].schema.properties.settings as {
      properties: Record<string, { enum: string[]; description: string; 'x-svc-default': string }>;
    };
    expect(Object.keys(settings.properties)).toEqual([...KNOWN_SETTINGS]);
    for (const name of KNOWN_SETTINGS) {
      expect(settings.properties[name]).toEqual({
        type: 'string',
        enum: ['true', 'false'],
        description: SETTING_DESCRIPTIONS[name],
        'x-svc-default': String(SETTING_DEFAULTS[name]),
      });
    }
    // The schema describes; it does not fill in: an absent setting stays absent in answers.
    const tenant = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(a.admin.key),
    });
    expect(tenant.json<{ settings: Record<string, string> }>().settings).toEqual({});
  });

  it('DELETE removes the tenant with 204; its keys stop working; other tenants remain', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const response = await server.app.inject({
      method: 'DELETE',
      url: '/tenants/self',
      headers: withKey(a.admin.key),
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const after = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(a.admin.key),
    });
    expect(after.statusCode).toBe(401);
    const other = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: withKey(b.admin.key),
    });
    expect(other.statusCode).toBe(200);
  });

  it('needs tenant:delete to delete', async () => {
    const reader = await createKey(server.services, a.tenant.id, 'management', [
      'tenant:read',
      'tenant:update',
    ]);
    const response = await server.app.inject({
      method: 'DELETE',
      url: '/tenants/self',
      headers: withKey(reader.key),
    });
    expect(response.statusCode).toBe(403);
  });
});

describe('/tenants for signed-in users', () => {
  it('lists the tenants the user belongs to and creates new ones they own', async () => {
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const headers = { authorization: `Bearer ${token}` };
    const before = await server.app.inject({ method: 'GET', url: '/tenants', headers });
    expect(before.statusCode).toBe(200);
    expect((before.json() as Array<{ id: string }>).map((t) => t.id)).toEqual([a.tenant.id]);

    const created = await server.app.inject({
      method: 'POST',
      url: '/tenants',
      headers,
      payload: { name: 'Second' },
    });
    expect(created.statusCode).toBe(201);
    const tenant = created.json() as { id: string; owner_id: string; name: string };
    expect(tenant).toMatchObject({ name: 'Second', owner_id: a.owner.id });

    const after = await server.app.inject({ method: 'GET', url: '/tenants', headers });
    expect((after.json() as Array<{ id: string }>).map((t) => t.id).sort()).toEqual(
      [a.tenant.id, tenant.id].sort(),
    );

    // The owner manages the new tenant with the session.
    const self = await server.app.inject({
      method: 'GET',
      url: '/tenants/self',
      headers: { ...headers, 'svc-tenant-id': tenant.id },
    });
    expect(self.json()).toMatchObject({ id: tenant.id, name: 'Second' });
  });

  it('answers a user without tenants with an empty list', async () => {
    const lone = await createLoneUser(server.services);
    const token = await signIn(server.services, lone.email, lone.password);
    const response = await server.app.inject({
      method: 'GET',
      url: '/tenants',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.json()).toEqual([]);
  });

  it('validates the name of a new tenant', async () => {
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const response = await server.app.inject({
      method: 'POST',
      url: '/tenants',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'z'.repeat(201) },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: { name: expect.any(Array) } });
  });
});

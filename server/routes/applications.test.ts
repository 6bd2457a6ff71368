import { beforeEach, describe, expect, it } from 'vitest';
import { createKey, createTenantFixture, signIn, type TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';

interface ApplicationJson {
  id: string;
  tenant_id: string;
  name: string;
  type: string;
  permissions: string[];
  rules: Array<Record<string, unknown>>;
  key?: string;
  created_at: string;
  modified_at: string | null;
}

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  return () => server.dispose();
});

function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown) {
  return server.app.inject({
    method,
    url,
    headers: { 'svc-api-key': key },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const PRIVATE_APP = {
  name: 'Backend',
  type: 'private',
  permissions: ['token:create'],
  rules: [
    {
      description: 'PCI reveal',
      priority: 1,
      container: '/pci/',
      permissions: ['token:read'],
      transform: 'reveal',
    },
    { priority: 2, container: '/', permissions: ['token:read', 'token:search'], transform: 'mask' },
  ],
};

describe('POST /applications', () => {
  it('creates an application and shows its key once', async () => {
    const response = await call('POST', '/applications', a.admin.key, PRIVATE_APP);
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const created = response.json() as ApplicationJson;
    expect(created).toMatchObject({
      tenant_id: a.tenant.id,
      name: 'Backend',
      type: 'private',
      permissions: ['token:create'],
      rules: [
        { description: 'PCI reveal', priority: 1, container: '/pci/', transform: 'reveal' },
        // A rule without a description gets an empty one.
        { description: '', priority: 2, container: '/' },
      ],
      key: expect.stringMatching(/^key_/),
      modified_at: null,
    });
    // Read back, it carries no key.
    const shown = await call('GET', `/applications/${created.id}`, a.admin.key);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).not.toHaveProperty('key');
    expect(shown.body).not.toContain(created.key);
  });

  it('answers a name over 200 characters with 400 naming the field', async () => {
    const response = await call('POST', '/applications', a.admin.key, {
      ...PRIVATE_APP,
      name: 'x'.repeat(201),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: { name: expect.any(Array) } });
  });

  it('refuses an unknown type and permissions the type may not hold', async () => {
    const badType = await call('POST', '/applications', a.admin.key, { ...PRIVATE_APP, type: 'desktop' });
    expect(badType.statusCode).toBe(400);
    expect(badType.json()).toMatchObject({ errors: { type: expect.any(Array) } });
    const badGrant = await call('POST', '/applications', a.admin.key, {
      name: 'Browser',
      type: 'public',
      permissions: ['token:read'],
    });
    expect(badGrant.statusCode).toBe(400);
    expect(badGrant.json()).toMatchObject({ errors: { 'permissions[0]': expect.any(Array) } });
  });

  it('ignores unknown fields', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const response = await call('POST', '/applications', a.admin.key, {
      name: 'Lenient',
      type: 'management',
      permissions: ['log:read'],
      tenant_id: b.tenant.id,
      colour: 'blue',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      tenant_id: a.tenant.id,
      can_create_expiring_applications: false,
    });
    expect(response.json()).not.toHaveProperty('colour');
  });
});

describe('reading applications', () => {
  it('lists with pagination and filters by id and type, never showing keys', async () => {
    const made: ApplicationJson[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await call('POST', '/applications', a.admin.key, { ...PRIVATE_APP, name: `p${i}` })).json());
    }
    const all = await call('GET', '/applications?size=2', a.admin.key);
    expect(all.statusCode).toBe(200);
    const page = all.json() as { pagination: Record<string, number>; data: ApplicationJson[] };
    // The admin application and three private ones.
    expect(page.pagination).toEqual({ total_items: 4, page_number: 1, page_size: 2, total_pages: 2 });
    expect(page.data).toHaveLength(2);
    for (const app of page.data) expect(app).not.toHaveProperty('key');
    for (const app of made) expect(all.body).not.toContain(app.key);

    const second = (await call('GET', '/applications?size=2&page=2', a.admin.key)).json() as typeof page;
    const ids = [...page.data, ...second.data].map((app) => app.id);
    expect(new Set(ids).size).toBe(4);

    const [first, , third] = made as [ApplicationJson, ApplicationJson, ApplicationJson];
    const byId = (
      await call('GET', `/applications?id=${first.id}&id=${third.id.toUpperCase()}`, a.admin.key)
    ).json() as typeof page;
    expect(byId.data.map((app) => app.id).sort()).toEqual([first.id, third.id].sort());

    const byType = (await call('GET', '/applications?type=management', a.admin.key)).json() as typeof page;
    expect(byType.data.map((app) => app.id)).toEqual([a.admin.id]);

    const badId = await call('GET', '/applications?id=nope', a.admin.key);
    expect(badId.statusCode).toBe(400);
    const badType = await call('GET', '/applications?type=desktop', a.admin.key);
    expect(badType.statusCode).toBe(400);
  });

  it('never lists applications of another tenant', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const list = (await call('GET', '/applications', b.admin.key)).json() as { data: ApplicationJson[] };
    expect(list.data.map((app) => app.id)).toEqual([b.admin.id]);
    const filtered = (await call('GET', `/applications?id=${a.admin.id}`, b.admin.key)).json() as {
      data: ApplicationJson[];
    };
    expect(filtered.data).toEqual([]);
  });

  it('GET /applications/key answers the calling application, without its key', async () => {
    const response = await call('GET', '/applications/key', a.admin.key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: a.admin.id, name: a.admin.name, tenant_id: a.tenant.id });
    expect(response.json()).not.toHaveProperty('key');
    // With a trailing slash too.
    expect((await call('GET', '/applications/key/', a.admin.key)).json()).toMatchObject({ id: a.admin.id });
  });

  it('GET /applications/key answers private and public keys too (who am I), 401 for others', async () => {
    for (const [type, permission] of [
      ['private', 'token:read'],
      ['public', 'token:create'],
    ] as const) {
      const app = await createKey(server.services, a.tenant.id, type, [permission]);
      const response = await call('GET', '/applications/key', app.key);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: app.id, type, permissions: [permission] });
      expect(response.body).not.toContain(app.key);
    }
    expect((await call('GET', '/applications/key', 'key_UnknownUnknownUnknown1')).statusCode).toBe(401);
    const session = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const bySession = await server.app.inject({
      method: 'GET',
      url: '/applications/key',
      headers: { authorization: `Bearer ${session}` },
    });
    expect(bySession.statusCode).toBe(404);
  });

  it('answers another tenant’s id exactly like an id that does not exist, and a malformed id too', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const foreign = await call('GET', `/applications/${a.admin.id}`, b.admin.key);
    const missing = await call('GET', '/applications/00000000-0000-4000-8000-000000000000', b.admin.key);
    const malformed = await call('GET', '/applications/not-a-uuid', b.admin.key);
    for (const response of [foreign, missing, malformed]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(foreign.json()).toEqual(missing.json());
    expect(malformed.json()).toEqual(missing.json());
    expect(foreign.body).not.toContain(a.admin.id);
  });

  it('gives a foreign id 404 on every verb, and changes nothing', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const id = a.admin.id;
    const update = await call('PUT', `/applications/${id}`, b.admin.key, {
      name: 'hijacked',
      permissions: ['log:read'],
    });
    const regenerate = await call('POST', `/applications/${id}/regenerate`, b.admin.key);
    const remove = await call('DELETE', `/applications/${id}`, b.admin.key);
    expect([update.statusCode, regenerate.statusCode, remove.statusCode]).toEqual([404, 404, 404]);
    expect(regenerate.body).not.toMatch(/key_/);
    const still = await call('GET', '/applications/key', a.admin.key);
    expect(still.json()).toMatchObject({ id, name: a.admin.name });
  });
});

describe('changing applications', () => {
  it('updates name, permissions and rules but not the type', async () => {
    const created = (await call('POST', '/applications', a.admin.key, PRIVATE_APP)).json() as ApplicationJson;
    const response = await call('PUT', `/applications/${created.id}`, a.admin.key, {
      name: 'Renamed',
      type: 'management',
      permissions: ['token:search'],
      rules: [],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: created.id,
      name: 'Renamed',
      type: 'private',
      permissions: ['token:search'],
      rules: [],
      modified_at: expect.any(String),
    });
    expect(response.json()).not.toHaveProperty('key');
    const tooLong = await call('PUT', `/applications/${created.id}`, a.admin.key, { name: 'y'.repeat(201) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({ errors: { name: expect.any(Array) } });
  });

  it('regenerate issues a new key and the old one stops working at once', async () => {
    const created = (
      await call('POST', '/applications', a.admin.key, {
        name: 'ops',
        type: 'management',
        permissions: ['application:read'],
      })
    ).json() as ApplicationJson;
    const oldKey = created.key as string;
    expect((await call('GET', '/applications/key', oldKey)).statusCode).toBe(200);

    const response = await call('POST', `/applications/${created.id}/regenerate`, a.admin.key);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const regenerated = response.json() as ApplicationJson;
    expect(regenerated).toMatchObject({ id: created.id, key: expect.stringMatching(/^key_/) });
    expect(regenerated.key).not.toBe(oldKey);

    expect((await call('GET', '/applications/key', oldKey)).statusCode).toBe(401);
    expect((await call('GET', '/applications/key', regenerated.key as string)).json()).toMatchObject({
      id: created.id,
    });
  });

  it('regenerate accepts an empty JSON body', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: `/applications/${a.admin.id}/regenerate`,
      headers: { 'svc-api-key': a.admin.key, 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(200);
  });

  it('deletes with 204 and the key stops working', async () => {
    const victim = await createKey(server.services, a.tenant.id, 'management', ['application:read']);
    const response = await call('DELETE', `/applications/${victim.id}`, a.admin.key);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await call('GET', '/applications/key', victim.key)).statusCode).toBe(401);
    expect((await call('GET', `/applications/${victim.id}`, a.admin.key)).statusCode).toBe(404);
    expect((await call('DELETE', `/applications/${victim.id}`, a.admin.key)).statusCode).toBe(404);
  });

  it('lets a member manage applications with a session', async () => {
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const headers = { authorization: `Bearer ${token}`, 'svc-tenant-id': a.tenant.id };
    const created = await server.app.inject({
      method: 'POST',
      url: '/applications',
      headers,
      payload: PRIVATE_APP,
    });
    expect(created.statusCode).toBe(201);
    const list = await server.app.inject({ method: 'GET', url: '/applications', headers });
    expect(list.json()).toMatchObject({ pagination: { total_items: 2 } });
  });
});

describe('grant escalation over HTTP', () => {
  it('a key with only application:create gets 403 for a stronger management app or a reveal-all app', async () => {
    const creator = await createKey(server.services, a.tenant.id, 'management', ['application:create']);
    const wrecker = await call('POST', '/applications', creator.key, {
      name: 'Wrecker',
      type: 'management',
      permissions: ['application:create', 'tenant:delete'],
    });
    expect(wrecker.statusCode).toBe(403);
    expect(wrecker.json()).toMatchObject({ code: 'FORBIDDEN' });
    const revealAll = await call('POST', '/applications', creator.key, {
      name: 'Reveal all',
      type: 'private',
      rules: [
        { description: 'all', priority: 1, container: '/', permissions: ['token:read'], transform: 'reveal' },
      ],
    });
    expect(revealAll.statusCode).toBe(403);
    // The administrator key of the tenant still creates it.
    expect((await call('POST', '/applications', a.admin.key, PRIVATE_APP)).statusCode).toBe(201);
  });

  it('a key with application:update cannot widen its own permissions', async () => {
    const self = await createKey(server.services, a.tenant.id, 'management', ['application:update']);
    const widened = await call('PUT', `/applications/${self.id}`, self.key, {
      name: 'Me',
      permissions: ['application:update', 'tenant:delete'],
    });
    expect(widened.statusCode).toBe(403);
    const principal = await server.services.auth.authenticateApiKey(self.key);
    expect(principal?.kind === 'application' ? principal.permissions : []).toEqual(['application:update']);
  });
});

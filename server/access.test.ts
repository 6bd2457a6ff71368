import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/vault/clock.ts';
import { buildServer } from './app.ts';
import {
  createKey,
  createLoneUser,
  createTenantFixture,
  signIn,
  UNKNOWN_KEY,
  type TenantFixture,
} from './test-support/identity.ts';
import { outboxTenancyOptions } from '../core/services.ts';
import { createTestVault, testBackend } from '../core/test-support/test-vault.ts';
import { createTestServer, type TestServer } from './test-support/test-server.ts';
import { createServerWithTenant } from './test-support/tenant-server.ts';

describe('access declarations', () => {
  let server: TestServer;

  beforeEach(async () => {
    server = await createTestServer();
  });

  afterEach(async () => {
    await server.dispose();
  });

  it('refuses a route that declares no access', () => {
    expect(() => server.app.get('/undeclared', async () => ({}))).toThrow(
      /GET \/undeclared declares no access\. Add config: \{ access:/,
    );
  });

  it('refuses a permission that is not in the catalogue', () => {
    expect(() =>
      // @ts-expect-error -- a typo is a compile error too; this checks the run-time guard.
      server.app.get('/typo', { config: { access: { permission: 'aplication:read' } } }, async () => ({})),
    ).toThrow(/not in the permission catalogue/);
  });

  it('refuses an empty permission list, or one naming a permission not in the catalogue', () => {
    expect(() =>
      server.app.get('/none', { config: { access: { permission: [] } } }, async () => ({})),
    ).toThrow(/not in the permission catalogue/);
    expect(() =>
      server.app.get(
        '/typo-in-list',
        // @ts-expect-error -- a typo is a compile error too; this checks the run-time guard.
        { config: { access: { permission: ['application:read', 'aplication:update'] } } },
        async () => ({}),
      ),
    ).toThrow(/not in the permission catalogue/);
  });

  it('refuses an unknown kind of access', () => {
    expect(() =>
      server.app.get('/odd', { config: { access: 'anyone' as 'public' } }, async () => ({})),
    ).toThrow(/unknown access/);
  });

  it('fails startup for an undeclared route inside a plugin', async () => {
    const start = async () => {
      await server.app.register(async (child) => {
        child.get('/in-plugin', async () => ({}));
      });
      await server.app.ready();
    };
    await expect(start()).rejects.toThrow(/GET \/in-plugin declares no access/);
  });

  it('guards routes added after buildServer like built-in ones', async () => {
    server.app.get('/late', { config: { access: { permission: 'log:read' } } }, async () => ({ ok: true }));
    const response = await server.app.inject({ method: 'GET', url: '/late' });
    expect(response.statusCode).toBe(401);
  });
});

describe('principal resolution', () => {
  let server: TestServer;
  let a: TenantFixture;

  beforeEach(async () => {
    ({ server, a } = await createServerWithTenant());
    return () => server.dispose();
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url, headers });

  it('answers a request without a credential with 401 and says what to send', async () => {
    const response = await get('/tenants/self');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({
      code: 'UNAUTHENTICATED',
      detail: expect.stringContaining('SVC-API-KEY'),
    });
  });

  it('answers an unknown key with 401 and never echoes it', async () => {
    const response = await get('/tenants/self', { 'svc-api-key': UNKNOWN_KEY });
    expect(response.statusCode).toBe(401);
    expect(response.body).not.toContain(UNKNOWN_KEY);
  });

  it('answers a key without the permission with 403', async () => {
    const app = await createKey(server.services, a.tenant.id, 'management', ['log:read']);
    const response = await get('/tenants/self', { 'svc-api-key': app.key });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      code: 'FORBIDDEN',
      detail: expect.stringContaining('tenant:read'),
    });
  });

  it('acts in the tenant of the key', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const response = await get('/tenants/self', { 'svc-api-key': b.admin.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: b.tenant.id });
  });

  it('accepts SVC-TENANT-ID with a key only when it names the key’s tenant', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const same = await get('/tenants/self', { 'svc-api-key': a.admin.key, 'svc-tenant-id': a.tenant.id });
    expect(same.statusCode).toBe(200);
    const other = await get('/tenants/self', { 'svc-api-key': a.admin.key, 'svc-tenant-id': b.tenant.id });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: { 'SVC-TENANT-ID': expect.any(Array) },
    });
  });

  it('uses the API key when both an API key and a bearer token are sent', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const keyWins = await get('/tenants/self', {
      'svc-api-key': b.admin.key,
      authorization: `Bearer ${token}`,
      'svc-tenant-id': b.tenant.id,
    });
    expect(keyWins.json()).toMatchObject({ id: b.tenant.id });
    // A bad key is not rescued by a good token …
    const badKey = await get('/tenants/self', {
      'svc-api-key': UNKNOWN_KEY,
      authorization: `Bearer ${token}`,
      'svc-tenant-id': a.tenant.id,
    });
    expect(badKey.statusCode).toBe(401);
    // … and an Authorization header meant for someone else does not spoil a good key.
    const foreignAuthorization = await get('/tenants/self', {
      'svc-api-key': a.admin.key,
      authorization: 'Basic dXNlcjpwYXNz',
    });
    expect(foreignAuthorization.statusCode).toBe(200);
  });

  it('resolves a session in the tenant named by SVC-TENANT-ID', async () => {
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const response = await get('/tenants/self', {
      authorization: `Bearer ${token}`,
      'svc-tenant-id': a.tenant.id,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: a.tenant.id });
    // Scheme name and header case do not matter.
    const lower = await get('/tenants/self', {
      authorization: `bearer ${token}`,
      'SVC-TENANT-ID': a.tenant.id.toUpperCase(),
    });
    expect(lower.statusCode).toBe(200);
  });

  it('requires SVC-TENANT-ID with a session on tenant endpoints, naming the header', async () => {
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const missing = await get('/tenants/self', { authorization: `Bearer ${token}` });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: expect.stringContaining('SVC-TENANT-ID'),
      errors: { 'SVC-TENANT-ID': ['is required with a user session'] },
    });
    const malformed = await get('/tenants/self', {
      authorization: `Bearer ${token}`,
      'svc-tenant-id': 'tenant-a',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ errors: { 'SVC-TENANT-ID': ['must be a tenant id (UUID)'] } });
    expect(missing.body).not.toContain(token);
  });

  it('answers a session in a tenant the user does not belong to with 403, existing or not', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    const token = await signIn(server.services, a.ownerEmail, a.ownerPassword);
    const other = await get('/tenants/self', {
      authorization: `Bearer ${token}`,
      'svc-tenant-id': b.tenant.id,
    });
    const missing = await get('/tenants/self', {
      authorization: `Bearer ${token}`,
      'svc-tenant-id': '00000000-0000-4000-8000-000000000000',
    });
    expect(other.statusCode).toBe(403);
    expect(missing.statusCode).toBe(403);
    expect(other.json()).toEqual(missing.json());
  });

  it('checks the token before the tenant header', async () => {
    const response = await get('/tenants/self', { authorization: 'Bearer not-a-session' });
    expect(response.statusCode).toBe(401);
    expect(response.body).not.toContain('not-a-session');
  });

  it('treats a non-Bearer Authorization header as no credential', async () => {
    const response = await get('/tenants/self', { authorization: 'Basic dXNlcjpwYXNz' });
    expect(response.statusCode).toBe(401);
  });

  it('refuses API keys on endpoints for signed-in users', async () => {
    const response = await get('/tenants', { 'svc-api-key': a.admin.key });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('ignores SVC-TENANT-ID on endpoints that are not tenant-scoped', async () => {
    const lone = await createLoneUser(server.services);
    const token = await signIn(server.services, lone.email, lone.password);
    const response = await get('/permissions', {
      authorization: `Bearer ${token}`,
      'svc-tenant-id': a.tenant.id,
    });
    expect(response.statusCode).toBe(200);
  });

  it('authenticates before it validates, so strangers learn nothing about request schemas', async () => {
    const noKey = await server.app.inject({
      method: 'POST',
      url: '/applications',
      payload: { nonsense: true },
    });
    expect(noKey.statusCode).toBe(401);
    const readOnly = await createKey(server.services, a.tenant.id, 'management', ['application:read']);
    const forbidden = await server.app.inject({
      method: 'POST',
      url: '/applications',
      headers: { 'svc-api-key': readOnly.key },
      payload: { nonsense: true },
    });
    expect(forbidden.statusCode).toBe(403);
  });
});

describe('session expiry', () => {
  it('refuses a session token after its lifetime', async () => {
    const clock = new ManualClock();
    const server = await createTestServer({ clock, serviceOptions: { sessionTtlMs: 60_000 } });
    try {
      const a = await createTenantFixture(server.services, 'Tenant A');
      const login = await server.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { email: a.ownerEmail, password: a.ownerPassword },
      });
      expect(login.statusCode).toBe(200);
      const { token, expires_at } = login.json() as { token: string; expires_at: string };
      expect(Date.parse(expires_at)).toBe(clock.now().getTime() + 60_000);
      const headers = { authorization: `Bearer ${token}`, 'svc-tenant-id': a.tenant.id };
      clock.advance(59_000);
      expect((await server.app.inject({ method: 'GET', url: '/tenants/self', headers })).statusCode).toBe(
        200,
      );
      clock.advance(2_000);
      const expired = await server.app.inject({ method: 'GET', url: '/tenants/self', headers });
      expect(expired.statusCode).toBe(401);
      expect(expired.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      await server.dispose();
    }
  });
});

describe('buildServer services option', () => {
  it('builds default services from the vault when none are given', async () => {
    const temp = await createTestVault();
    // A vault in a database has no folder to put an outbox beside: it is told where mail goes.
    if (testBackend() === 'postgres') {
      await expect(buildServer(temp.vault, { logger: { level: 'silent' } })).rejects.toThrow(
        /no folder beside it/,
      );
    }
    const serviceOptions =
      testBackend() === 'postgres' ? { tenancy: outboxTenancyOptions(temp.dir) } : undefined;
    const app = await buildServer(temp.vault, { logger: { level: 'silent' }, serviceOptions });
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/permissions',
        headers: { 'svc-api-key': UNKNOWN_KEY },
      });
      expect(response.statusCode).toBe(401);
    } finally {
      await app.close();
      await temp.dispose();
    }
  });
});

import type { InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenantFixture, type TenantFixture } from './test-support/identity.ts';
import { createTestServer, type TestServer } from './test-support/test-server.ts';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  // Everything the server writes, down to trace.
  server = await createTestServer({ logLevel: 'trace' });
  a = await createTenantFixture(server.services, 'Tenant A');
});

afterEach(async () => {
  await server.dispose();
});

describe('credentials in logs', () => {
  it('never writes keys, passwords or session tokens, whatever the outcome', async () => {
    const secrets: string[] = [a.admin.key, a.ownerPassword];
    const inject = (options: InjectOptions) => server.app.inject(options);

    // Sign-ins: good, bad, malformed, throttled.
    const login = await inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: a.ownerEmail, password: a.ownerPassword },
    });
    const { token } = login.json() as { token: string };
    secrets.push(token);
    for (let attempt = 0; attempt < 12; attempt++) {
      const guess = `wrong-password-${attempt}-${a.ownerPassword.slice(3, 11)}`;
      secrets.push(guess);
      await inject({
        method: 'POST',
        url: '/auth/login',
        payload: { email: a.ownerEmail, password: guess },
        remoteAddress: '203.0.113.9',
      });
    }
    await inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: `{"email": "${a.ownerEmail}", "password": "${a.ownerPassword}"`,
    });

    // Applications: create, regenerate, use the keys, fail with them.
    const created = await inject({
      method: 'POST',
      url: '/applications',
      headers: { 'svc-api-key': a.admin.key },
      payload: { name: 'secret keeper', type: 'management', permissions: ['application:read'] },
    });
    const app = created.json() as { id: string; key: string };
    secrets.push(app.key);
    const regenerated = await inject({
      method: 'POST',
      url: `/applications/${app.id}/regenerate`,
      headers: { authorization: `Bearer ${token}`, 'svc-tenant-id': a.tenant.id },
    });
    const newKey = (regenerated.json() as { key: string }).key;
    secrets.push(newKey);
    await inject({ method: 'GET', url: '/applications/key', headers: { 'svc-api-key': app.key } });
    await inject({ method: 'GET', url: '/applications/key', headers: { 'svc-api-key': newKey } });
    await inject({ method: 'GET', url: '/tenants/self', headers: { authorization: `Bearer ${token}` } });
    await inject({ method: 'POST', url: '/auth/logout', headers: { authorization: `Bearer ${token}` } });
    await inject({ method: 'GET', url: '/tenants', headers: { authorization: `Bearer ${token}` } });

    expect(created.statusCode).toBe(201);
    expect(regenerated.statusCode).toBe(200);
    const text = server.logs.text();
    expect(text).toContain('request completed');
    for (const secret of secrets) expect(text, 'a credential reached the log').not.toContain(secret);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { type TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  return () => server.dispose();
});

const login = (email: string, password: string, remoteAddress = '127.0.0.1') =>
  server.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress });

describe('POST /auth/login', () => {
  it('answers a session token and its expiry', async () => {
    const response = await login(a.ownerEmail, a.ownerPassword);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json() as { token: string; expires_at: string };
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'token']);
    expect(body.token.length).toBeGreaterThan(20);
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now());
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const wrong = await login(a.ownerEmail, 'not the password');
    const unknown = await login('nobody@example.test', 'not the password');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.body).not.toContain('not the password');
    expect(wrong.body).not.toContain(a.ownerEmail);
  });

  it('validates the body', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: a.ownerEmail },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: { password: ['is required'] } });
  });

  it('throttles repeated failures of an account with 429 and Retry-After', async () => {
    let throttled;
    for (let attempt = 0; attempt < 50; attempt++) {
      const response = await login(a.ownerEmail, `guess ${attempt}`, '203.0.113.7');
      if (response.statusCode === 429) {
        throttled = response;
        break;
      }
      expect(response.statusCode).toBe(401);
    }
    expect(throttled, 'no 429 after 50 failed sign-ins').toBeDefined();
    expect(throttled?.json()).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const retryAfter = Number(throttled?.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true);
  });

  it('failures against many accounts from 127.0.0.1 do not lock out other local callers', async () => {
    for (let i = 0; i < 40; i++)
      expect((await login(`stranger${i}@example.test`, 'wrong password')).statusCode).toBe(401);
    expect((await login(a.ownerEmail, a.ownerPassword)).statusCode).toBe(200);
  });
});

describe('POST /auth/logout', () => {
  it('revokes the session with 204', async () => {
    const { token } = (await login(a.ownerEmail, a.ownerPassword)).json() as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'svc-tenant-id': a.tenant.id };
    expect((await server.app.inject({ method: 'GET', url: '/tenants/self', headers })).statusCode).toBe(200);
    const response = await server.app.inject({ method: 'POST', url: '/auth/logout', headers });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await server.app.inject({ method: 'GET', url: '/tenants/self', headers })).statusCode).toBe(401);
    expect((await server.app.inject({ method: 'POST', url: '/auth/logout', headers })).statusCode).toBe(401);
  });

  it('leaves the user’s other sessions alone', async () => {
    const first = (await login(a.ownerEmail, a.ownerPassword)).json() as { token: string };
    const second = (await login(a.ownerEmail, a.ownerPassword)).json() as { token: string };
    await server.app.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { authorization: `Bearer ${first.token}` },
    });
    const still = await server.app.inject({
      method: 'GET',
      url: '/tenants',
      headers: { authorization: `Bearer ${second.token}` },
    });
    expect(still.statusCode).toBe(200);
  });

  it('needs a session, not an API key', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { 'svc-api-key': a.admin.key },
    });
    expect(response.statusCode).toBe(403);
  });
});

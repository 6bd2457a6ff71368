import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/vault/clock.ts';
import { createTenantFixture } from './test-support/identity.ts';
import { createTestServer, type TestServer } from './test-support/test-server.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.dispose();
  server = undefined;
});

describe('per-key request rate limit', () => {
  it('answers 429 with Retry-After once a key has used its requests, and nothing is audited for them', async () => {
    const clock = new ManualClock();
    server = await createTestServer({ clock, rateLimit: 20 });
    const a = await createTenantFixture(server.services, 'A');
    const b = await createTenantFixture(server.services, 'B');
    const list = (key: string) =>
      server!.app.inject({ method: 'GET', url: '/applications', headers: { 'svc-api-key': key } });
    for (let i = 0; i < 20; i++) expect((await list(a.admin.key)).statusCode).toBe(200);
    const auditBefore = await server.temp.vault.db.selectFrom('audit_logs').select('id').execute();
    const refused = await list(a.admin.key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(refused.headers['retry-after']).toBe('3');
    // The refused read wrote nothing: the vault does not grow.
    expect(await server.temp.vault.db.selectFrom('audit_logs').select('id').execute()).toHaveLength(
      auditBefore.length,
    );
    // Other keys are not affected; after the wait the key works again.
    expect((await list(b.admin.key)).statusCode).toBe(200);
    clock.advance(3000);
    expect((await list(a.admin.key)).statusCode).toBe(200);
  });

  it('limits a signed-in user across sessions', async () => {
    server = await createTestServer({ rateLimit: 3, clock: new ManualClock() });
    const a = await createTenantFixture(server.services, 'A');
    const login = async () =>
      (
        (
          await server!.app.inject({
            method: 'POST',
            url: '/auth/login',
            payload: { email: a.ownerEmail, password: a.ownerPassword },
          })
        ).json() as { token: string }
      ).token;
    const tokens = [await login(), await login()];
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await server.app.inject({
        method: 'GET',
        url: '/tenants/self',
        headers: { authorization: `Bearer ${tokens[i % 2]}`, 'svc-tenant-id': a.tenant.id },
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

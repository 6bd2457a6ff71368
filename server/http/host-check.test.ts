import { afterEach, describe, expect, it } from 'vitest';
import { createTenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { hostOf } from './host-check.ts';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.dispose();
  server = undefined;
});

describe('Host header check (DNS rebinding)', () => {
  it('refuses a rebound name with 421 before any handler runs, even with a valid key', async () => {
    server = await createTestServer();
    const tenant = await createTenantFixture(server.services, 'Acme');
    const response = await server.app.inject({
      method: 'GET',
      url: '/applications',
      headers: { host: 'attacker.example:8080', 'svc-api-key': tenant.admin.key },
    });
    expect(response.statusCode).toBe(421);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'MISDIRECTED_REQUEST', status: 421 });
    // The same request under a loopback name or address is answered.
    for (const host of ['localhost:8080', '127.0.0.1:8080', '[::1]:8080', 'LOCALHOST']) {
      const ok = await server.app.inject({
        method: 'GET',
        url: '/applications',
        headers: { host, 'svc-api-key': tenant.admin.key },
      });
      expect(ok.statusCode, host).toBe(200);
    }
  });

  it('answers the configured names: allowedHosts and the host of the public URL', async () => {
    server = await createTestServer({
      allowedHosts: ['vault.internal'],
      tenancy: {
        mail: { kind: 'outbox', dir: '/nonexistent', from: 'a@b.c' },
        acceptBaseUrl: 'https://vault.example.com/invitations/accept',
      },
    });
    const status = async (host: string) =>
      (await server!.app.inject({ method: 'GET', url: '/permissions', headers: { host } })).statusCode;
    expect(await status('vault.internal')).not.toBe(421);
    expect(await status('Vault.Example.com:443')).not.toBe(421);
    expect(await status('vault.example.com.evil.example')).toBe(421);
    expect(await status('10.1.2.3:8080')).not.toBe(421);
    expect(await status('bad host')).toBe(421);
  });

  it('parses Host values', () => {
    expect(hostOf('Example.COM:80')).toBe('example.com');
    expect(hostOf('[::1]:8080')).toBe('::1');
    expect(hostOf('localhost.')).toBe('localhost');
    expect(hostOf('a b')).toBeNull();
    expect(hostOf('user@host')).toBeNull();
  });
});

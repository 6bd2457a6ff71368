import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestDestination,
  type TestDestination,
} from '../core/outbound/test-support/https-destination.ts';
import { loopbackOutbound } from '../core/outbound/test-support/loopback-outbound.ts';
import { ManualClock } from '../core/vault/clock.ts';
import { createTenantFixture, operator, type TenantFixture } from './test-support/identity.ts';
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

describe('proxy requests', () => {
  const LIMIT = 120;
  let destination: TestDestination;
  let proxyServer: TestServer;
  let clock: ManualClock;
  let fx: TenantFixture;

  beforeAll(async () => {
    destination = await startTestDestination();
    const outbound = await loopbackOutbound(5000);
    clock = new ManualClock();
    proxyServer = await createTestServer({ clock, rateLimit: LIMIT, serviceOptions: { outbound } });
    fx = await createTenantFixture(proxyServer.services, 'Proxies');
  });
  afterAll(async () => {
    await proxyServer.dispose();
    await destination.close();
  });

  async function anonymousProxy(): Promise<{ id: string; key: string }> {
    const proxy = await proxyServer.services.proxies.create(operator(fx.tenant.id), {
      name: 'open',
      destination_url: `https://api.svc.test:${destination.port}/hook`,
      require_auth: false,
    });
    return { id: proxy.id, key: proxy.key };
  }

  const invocations = async (proxyId: string): Promise<number> => {
    await proxyServer.services.proxyInvoker.settled();
    const page = await proxyServer.services.logs.list(
      operator(fx.tenant.id),
      { entityType: 'proxy', entityId: proxyId },
      { page: 1, size: 1000 },
    );
    return page.items.filter((entry) => entry.operation === 'invoke').length;
  };

  const statusCounts = (responses: readonly LightMyRequestResponse[]): Record<number, number> => {
    const counts: Record<number, number> = {};
    for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1;
    return counts;
  };

  it('counts keyless requests per proxy: 300 at once meet 429 with Retry-After, and a refused one is neither forwarded nor audited', async () => {
    const proxy = await anonymousProxy();
    const reachedBefore = destination.received.length;
    const responses = await Promise.all(
      Array.from({ length: 300 }, () =>
        proxyServer.app.inject({
          method: 'POST',
          url: `/proxy?svc-proxy-key=${proxy.key}`,
          headers: { 'content-type': 'application/json' },
          payload: { hello: 'world' },
        }),
      ),
    );
    expect(statusCounts(responses)).toEqual({ 200: LIMIT, 429: 300 - LIMIT });
    const refused = responses.find((r) => r.statusCode === 429);
    expect(refused?.headers['retry-after']).toBe('1');
    expect(refused?.json()).toMatchObject({
      proxy_error: { code: 'RATE_LIMITED', status: 429, detail: expect.stringContaining('this proxy') },
    });
    expect(destination.received.length - reachedBefore).toBe(LIMIT);
    expect(await invocations(proxy.id)).toBe(LIMIT);

    // The bucket refills at the configured rate; another proxy has its own.
    const other = await anonymousProxy();
    const call = (key: string) =>
      proxyServer.app.inject({ method: 'GET', url: '/proxy', headers: { 'svc-proxy-key': key } });
    expect((await call(other.key)).statusCode).toBe(200);
    clock.advance(60_000 / LIMIT);
    expect((await call(proxy.key)).statusCode).toBe(200);
    expect((await call(proxy.key)).statusCode).toBe(429);
  });

  it('counts made-up proxy keys per client address, not per key, and answers them like before until the limit', async () => {
    const responses: LightMyRequestResponse[] = [];
    for (let i = 0; i < LIMIT + 5; i++) {
      responses.push(
        await proxyServer.app.inject({
          method: 'GET',
          url: '/proxy',
          headers: { 'svc-proxy-key': `madeUp${i}` },
          remoteAddress: '192.0.2.7',
        }),
      );
    }
    expect(statusCounts(responses)).toEqual({ 404: LIMIT, 429: 5 });
    // Another address has its own count.
    const elsewhere = await proxyServer.app.inject({
      method: 'GET',
      url: '/proxy',
      headers: { 'svc-proxy-key': 'madeUpToo' },
      remoteAddress: '192.0.2.8',
    });
    expect(elsewhere.statusCode).toBe(404);
  });

  it("counts requests with an API key in the key's own bucket, shared with every other route", async () => {
    const key = fx.admin.key;
    for (let i = 0; i < LIMIT; i++) {
      const listed = await proxyServer.app.inject({
        method: 'GET',
        url: '/applications',
        headers: { 'svc-api-key': key },
      });
      expect(listed.statusCode).toBe(200);
    }
    const proxied = await proxyServer.app.inject({
      method: 'GET',
      url: '/proxy',
      headers: { 'svc-api-key': key, 'svc-proxy-url': `https://api.svc.test:${destination.port}/x` },
    });
    expect(proxied.statusCode).toBe(429);
    expect(proxied.headers['retry-after']).toBeDefined();
  });
});

/**
 * One tenant's endless loops must not starve another tenant's reactors: the attack is four endless
 * runs of one tenant (two reactor invocations, two proxy requests whose request transform never
 * ends: the same pool runs both), then another tenant's trivial reactor, over HTTP. Each loop first
 * fetches the test destination, so the test knows when it runs on a worker (no sleeps).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestDestination,
  type TestDestination,
} from '../../core/outbound/test-support/https-destination.ts';
import { loopbackOutbound } from '../../core/outbound/test-support/loopback-outbound.ts';
import { createKey, createTenantFixture, operator } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

/** Far above the trivial reactor's answer, also on a loaded machine; the loops burn it in full. */
const TIMEOUT_MS = 3000;
const PENDING_PER_TENANT = 4;

let destination: TestDestination;
let server: TestServer;

beforeAll(async () => {
  destination = await startTestDestination();
  const outbound = await loopbackOutbound(5000);
  server = await createTestServer({
    serviceOptions: {
      outbound,
      // Three workers: one tenant may hold two of them.
      sandbox: {
        workers: 3,
        limits: { timeoutMs: TIMEOUT_MS, memoryBytes: 16 * 1024 * 1024 },
        pool: { pendingPerTenant: PENDING_PER_TENANT },
      },
    },
  });
});

afterAll(async () => {
  await server.dispose();
  await destination.close();
});

/** A tenant with a reactor running `code`, and the headers of a key that may invoke it. */
async function tenantWithReactor(name: string, code: string) {
  const fx = await createTenantFixture(server.services, name);
  const op = operator(fx.tenant.id);
  const { formula } = await server.services.reactors.createFormula(op, {
    name: 'f',
    type: 'private',
    code,
    configuration: [],
    request_parameters: [],
  });
  const reactor = await server.services.reactors.create(op, {
    name: 'r',
    formula: { id: formula.id },
    configuration: {},
  });
  const key = await createKey(server.services, fx.tenant.id, 'private', ['token:use'], 'caller');
  const react = () =>
    server.app.inject({
      method: 'POST',
      url: `/reactors/${reactor.id}/react`,
      headers: { 'svc-api-key': key.key },
      payload: { args: {} },
    });
  // The same code as a proxy's request transform, called without an API key.
  const proxy = await server.services.proxies.create(op, {
    name: 'p',
    destination_url: `https://api.svc.test:${destination.port}/hook`,
    require_auth: false,
    request_transform: { code },
  });
  const proxied = () =>
    server.app.inject({ method: 'POST', url: '/proxy', headers: { 'svc-proxy-key': proxy.key } });
  return { react, proxied };
}

describe('reactors and proxy transforms of two tenants', () => {
  it("tenant B's trivial reactor answers while tenant A's four endless loops run until their timeout; A's fifth is refused with 429", async () => {
    const looping = await tenantWithReactor(
      'A',
      `module.exports = async () => { await fetch('https://api.svc.test:${destination.port}/started'); for (;;) {} };`,
    );
    const trivial = await tenantWithReactor('B', 'module.exports = async () => ({ raw: "ok" });');
    // B's first answer starts a worker and compiles its code; later ones show the usual latency.
    expect((await trivial.react()).statusCode).toBe(200);

    let started = 0;
    let twoStarted: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (twoStarted = resolve));
    destination.handle((_request, response) => {
      started += 1;
      if (started === 2) twoStarted();
      // The two runs that wait in the queue start once the first two have met their deadline, after
      // tenant B's answer: left without an answer, they hold their workers until their own deadline
      // as the loops do, without spinning on the cores the rest of the suite runs on.
      if (started <= 2) response.end('{}');
    });
    const settled: number[] = [];
    const loops = [looping.react, looping.react, looping.proxied, looping.proxied].map((send, n) =>
      send().then((response) => {
        settled.push(n);
        return response;
      }),
    );
    await running;

    const fifth = await looping.react();
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const began = performance.now();
    const answer = await trivial.react();
    const tookMs = performance.now() - began;
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ raw: 'ok' });
    // Answered while none of A's loops had ended, so well within their deadline.
    expect(settled).toEqual([]);
    expect(tookMs).toBeLessThan(TIMEOUT_MS);

    const loopAnswers = await Promise.all(loops);
    expect(loopAnswers.map((r) => r.statusCode)).toEqual([408, 408, 408, 408]);
    // The proxies answered inside proxy_error, and never reached their destination.
    expect(loopAnswers[2]?.json()).toMatchObject({ proxy_error: { code: 'REACTOR_TIMEOUT' } });
    expect(destination.received.filter((r) => r.url.startsWith('/hook'))).toEqual([]);
    expect(started).toBe(4);
  });
});

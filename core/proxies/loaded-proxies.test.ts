import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { createOutboundClient, parseAllowList } from '../outbound/index.ts';
import { startTestDestination, testPki } from '../outbound/test-support/https-destination.ts';
import type { TestDestination } from '../outbound/test-support/https-destination.ts';
import { createServices, outboxTenancyOptions } from '../services.ts';
import type { Services } from '../services-contract.ts';
import { codeOf, openServicesFixture } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import type { ProxyInput } from './contract.ts';

/**
 * Proxies are kept opened between requests. Two service containers over one vault stand for two
 * servers: a change made through one must be followed by the very next request through the other
 * (on PostgreSQL that is the row's version check; on the embedded vault, the table changes).
 */
let destination: TestDestination;
let fx: ServicesFixture;
let first: Services;
let second: Services;
let op: Principal;
let tokenId: string;
let useKey: string;
let base: string;

async function resolve(hostname: string): Promise<LookupAddress[]> {
  if (hostname.endsWith('.svc.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
}

beforeAll(async () => {
  destination = await startTestDestination();
  const caPem = (await testPki()).caPem;
  const outbound = () =>
    createOutboundClient({ allow: parseAllowList('127.0.0.0/8'), caPem, timeoutMs: 2000 }, { resolve });
  fx = await openServicesFixture({ outbound: outbound() });
  first = fx.services;
  second = createServices(
    fx.vault,
    { outbound: outbound(), tenancy: outboxTenancyOptions(fx.tmp.dir) },
    { sandbox: first.sandbox },
  );
  const { tenant } = await first.tenants.create({ name: 'loaded proxies', withApplication: false }, null);
  op = { kind: 'operator', tenantId: tenant.id };
  useKey = (
    await first.applications.create(op, {
      name: 'use',
      type: 'private',
      rules: [
        { description: '', priority: 1, container: '/', permissions: ['token:use'], transform: 'reveal' },
      ],
    })
  ).key;
  tokenId = (await first.tokens.create(op, { type: 'token', data: 'Jane' })).token.id;
  base = `https://api.svc.test:${destination.port}`;
});

afterAll(async () => {
  await second?.outbound.close();
  await fx.close();
  await destination.close();
});

/** One proxied POST through `services`, with the caller's key unless `keyless`. */
async function invoke(
  services: Services,
  proxyKey: string,
  options: { keyless?: boolean } = {},
): Promise<{ status: number; body: string }> {
  const response = await services.proxyInvoker({
    method: 'POST',
    path: '/charges',
    rawQuery: '',
    headers: [
      ['content-type', 'application/json'],
      ['svc-proxy-key', proxyKey],
      ...(options.keyless === true ? [] : ([['svc-api-key', useKey]] as Array<[string, string]>)),
    ],
    body: Buffer.from(JSON.stringify({ name: `{{ ${tokenId} }}` })),
    authenticate: (key) => services.auth.authenticateApiKey(key),
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return { status: response.status, body: Buffer.concat(chunks).toString('utf8') };
}

const input = (overrides: Partial<ProxyInput>): ProxyInput => ({
  name: 'p',
  destination_url: `${base}/v1`,
  ...overrides,
});

const lastUrl = () => destination.received.at(-1)?.url;

describe('proxies kept opened between requests', () => {
  it('follows an update of the destination made through another server at the next request', async () => {
    const proxy = await first.proxies.create(op, input({}));
    expect((await invoke(first, proxy.key)).status).toBe(200);
    expect(lastUrl()).toBe('/v1/charges');
    await second.proxies.update(op, proxy.id, input({ destination_url: `${base}/v2` }));
    expect((await invoke(first, proxy.key)).status).toBe(200);
    expect(lastUrl()).toBe('/v2/charges');
  });

  it('answers a proxy deleted through another server as unknown at the next request', async () => {
    const proxy = await first.proxies.create(op, input({}));
    expect((await invoke(first, proxy.key)).status).toBe(200);
    await second.proxies.delete(op, proxy.id);
    expect(await codeOf(invoke(first, proxy.key))).toBe('NOT_FOUND');
  });

  it('follows require_auth switched on, and the application of a keyless proxy losing its grant', async () => {
    const app = await first.applications.create(op, {
      name: 'keyless',
      type: 'private',
      rules: [
        { description: '', priority: 1, container: '/', permissions: ['token:use'], transform: 'reveal' },
      ],
    });
    const proxy = await first.proxies.create(op, input({ require_auth: false, application: { id: app.id } }));
    const sent = await invoke(first, proxy.key, { keyless: true });
    expect(sent.status).toBe(200);
    expect(JSON.parse(destination.received.at(-1)!.body.toString('utf8'))).toEqual({ name: 'Jane' });

    await second.applications.update(op, app.id, {
      name: 'keyless',
      rules: [
        { description: '', priority: 1, container: '/', permissions: ['token:read'], transform: 'reveal' },
      ],
    });
    expect(await codeOf(invoke(first, proxy.key, { keyless: true }))).toBe('FORBIDDEN');

    await second.proxies.update(op, proxy.id, input({ require_auth: true, application: { id: app.id } }));
    expect(await codeOf(invoke(first, proxy.key, { keyless: true }))).toBe('UNAUTHENTICATED');
    expect((await invoke(first, proxy.key)).status).toBe(200);
  });

  it('runs the transform code as it was last saved, through another server', async () => {
    const transform = (version: string) => ({
      code: `module.exports = async function (req) {
  return { body: { ...req.args.body, version: '${version}', secret: req.configuration.SECRET }, headers: req.args.headers };
};`,
    });
    const proxy = await first.proxies.create(
      op,
      input({ request_transform: transform('1'), configuration: { SECRET: 'one' } }),
    );
    expect((await invoke(first, proxy.key)).status).toBe(200);
    expect(JSON.parse(destination.received.at(-1)!.body.toString('utf8'))).toEqual({
      name: 'Jane',
      version: '1',
      secret: 'one',
    });
    await second.proxies.update(
      op,
      proxy.id,
      input({ request_transform: transform('2'), configuration: { SECRET: 'two' } }),
    );
    expect((await invoke(first, proxy.key)).status).toBe(200);
    expect(JSON.parse(destination.received.at(-1)!.body.toString('utf8'))).toEqual({
      name: 'Jane',
      version: '2',
      secret: 'two',
    });
  });
});

import { randomUUID } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../core/access/principal.ts';
import { createOutboundClient, parseAllowList } from '../../core/outbound/index.ts';
import {
  echo,
  startTestDestination,
  testPki,
  type TestDestination,
} from '../../core/outbound/test-support/https-destination.ts';
import { auditRows } from '../../core/test-support/services-fixture.ts';
import { createKey, createTenantFixture, operator, type TenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { rule } from '../test-support/tokens.ts';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

let destination: TestDestination;
let server: TestServer;
let fx: TenantFixture;
let op: Principal;
let useKey: string;
let publicKey: string;
let narrow: { id: string; key: string };
let cardId: string;
let nameId: string;
let secretId: string;
let base: string;

/**
 * The test resolver: every `*.svc.test` name is the test destination on loopback (allowed);
 * `private.svc.test` is 10.0.0.7 and `loopback.internal.test` is ::1 (both refused); others resolve nowhere.
 */
async function resolve(hostname: string): Promise<LookupAddress[]> {
  if (hostname === 'private.svc.test') return [{ address: '10.0.0.7', family: 4 }];
  if (hostname === 'loopback.internal.test') return [{ address: '::1', family: 6 }];
  if (hostname === 'svc.test' || hostname.endsWith('.svc.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
}

beforeAll(async () => {
  destination = await startTestDestination();
  const outbound = createOutboundClient(
    { allow: parseAllowList('127.0.0.0/8'), caPem: (await testPki()).caPem, timeoutMs: 2000 },
    { resolve },
  );
  server = await createTestServer({ serviceOptions: { outbound } });
  fx = await createTenantFixture(server.services, 'Proxy tenant');
  op = operator(fx.tenant.id);
  const uses = rule('/', ['token:use'], 'reveal');
  useKey = (await server.services.applications.create(op, { name: 'use', type: 'private', rules: [uses] }))
    .key;
  const pub = await server.services.applications.create(op, {
    name: 'pub',
    type: 'public',
    permissions: ['token:create'],
  });
  publicKey = pub.key;
  narrow = await server.services.applications.create(op, {
    name: 'narrow',
    type: 'private',
    rules: [rule('/general/', ['token:use'], 'reveal')],
  });
  cardId = (await server.services.tokens.create(op, { type: 'card', data: CARD })).token.id;
  nameId = (await server.services.tokens.create(op, { type: 'token', data: 'Jane' })).token.id;
  secretId = (
    await server.services.tokens.create(op, { type: 'token', data: 'hush', containers: ['/secret/'] })
  ).token.id;
  base = `https://api.svc.test:${destination.port}`;
});

afterAll(async () => {
  await server.dispose();
  await destination.close();
});

const lastReceived = () => {
  const seen = destination.received.at(-1);
  if (seen === undefined) throw new Error('nothing reached the destination');
  return seen;
};

function proxyErrorOf(response: LightMyRequestResponse): {
  status: number;
  code: string;
  detail: string;
  errors?: Record<string, string[]>;
} {
  const body = response.json() as { proxy_error?: { status: number; code: string; detail: string } };
  if (body.proxy_error === undefined) throw new Error(`no proxy_error in ${response.body}`);
  expect(response.headers['svc-proxy-destination-status']).toBeUndefined();
  expect(body.proxy_error.status).toBe(response.statusCode);
  return body.proxy_error;
}

async function createProxy(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/proxies',
    headers: { 'svc-api-key': fx.admin.key },
    payload: { name: 'p', destination_url: `${base}/base`, ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; key: string };
}

describe('ephemeral proxy (SVC-PROXY-URL)', () => {
  it('detokenizes a JSON body, strips vault and hop-by-hop headers, joins path and query', async () => {
    const before = destination.received.length;
    const response = await server.app.inject({
      method: 'POST',
      url: '/proxy/charges/1?expand=a&b=c',
      headers: {
        'svc-api-key': useKey,
        'svc-proxy-url': `${base}/v1/`,
        'svc-trace-id': 'trace-1',
        'content-type': 'application/json',
        authorization: 'Bearer destination-secret',
        'x-Custom-Header': 'kept',
        connection: 'keep-alive, x-drop-me',
        'x-drop-me': 'gone',
        'keep-alive': 'timeout=5',
      },
      payload: { card: `{{ ${cardId} }}`, last4: `{{ ${cardId} | json: '$.number' | last4 }}`, plain: 'x' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['svc-proxy-destination-status']).toBe('200');
    expect(destination.received.length).toBe(before + 1);
    const seen = lastReceived();
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/charges/1?expand=a&b=c');
    expect(JSON.parse(seen.body.toString('utf8'))).toEqual({ card: CARD, last4: '4242', plain: 'x' });
    expect(seen.headers.authorization).toBe('Bearer destination-secret');
    expect(seen.headers['x-custom-header']).toBe('kept');
    for (const name of seen.rawHeaderNames) expect(name.toLowerCase().startsWith('svc-')).toBe(false);
    expect(seen.headers['x-drop-me']).toBeUndefined();
    expect(seen.headers['keep-alive']).toBeUndefined();
    expect(Number(seen.headers['content-length'])).toBe(seen.body.length);
  });

  it("forwards and relays headers named like an object's own members", async () => {
    // Names any client or destination may send: on a plain object, reading them finds the
    // prototype's members (`__proto__`, which Node's HTTP parser itself drops, is covered by
    // core/outbound/header-record.test.ts).
    destination.handle((_req, res) => {
      res.setHeader('constructor', ['c1', 'c2']);
      res.setHeader('tostring', 'kept');
      res.end('{}');
    });
    try {
      const headers: Record<string, string | string[]> = {
        'svc-api-key': useKey,
        'svc-proxy-url': `${base}/v1/`,
        constructor: ['a', 'b'],
        hasownproperty: 'h',
      };
      const response = await server.app.inject({ method: 'GET', url: '/proxy/headers', headers });
      expect(response.statusCode, response.body).toBe(200);
      const seen = lastReceived();
      // light-my-request sends an array as one field, its items joined by a comma.
      expect(seen.headers['constructor']).toBe('a,b');
      expect(seen.headers['hasownproperty']).toBe('h');
      expect(seen.rawHeaderNames.filter((name) => /^\d+$/.test(name))).toEqual([]);
      expect(response.headers['constructor']).toEqual(['c1', 'c2']);
      expect(response.headers['tostring']).toBe('kept');
    } finally {
      destination.handle(echo);
    }
  });

  it('keeps a JSON key named like an object member in the body it detokenizes', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/proxy/keys',
      headers: { 'svc-api-key': useKey, 'svc-proxy-url': `${base}/v1/`, 'content-type': 'application/json' },
      payload: `{"__proto__":{"name":"{{ ${nameId} }}"},"constructor":"c","plain":1}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(lastReceived().body.toString('utf8')).toBe(
      '{"__proto__":{"name":"Jane"},"constructor":"c","plain":1}',
    );
  });

  it('detokenizes form and text bodies and header values; forwards other bodies byte for byte', async () => {
    await server.app.inject({
      method: 'PUT',
      url: '/proxy',
      headers: {
        'svc-api-key': useKey,
        'svc-proxy-url': base,
        'content-type': 'application/x-www-form-urlencoded',
        'x-name': `Name {{ ${nameId} }}`,
      },
      payload: `name={{ ${nameId} }}&num={{ ${cardId} | json: '$.number' }}&x=1+2`,
    });
    let seen = lastReceived();
    expect(seen.method).toBe('PUT');
    expect(seen.url).toBe('/');
    expect(Object.fromEntries(new URLSearchParams(seen.body.toString('utf8')))).toEqual({
      name: 'Jane',
      num: '4242424242424242',
      x: '1 2',
    });
    expect(seen.headers['x-name']).toBe('Name Jane');

    await server.app.inject({
      method: 'PATCH',
      url: '/proxy/t',
      headers: { 'svc-api-key': useKey, 'svc-proxy-url': base, 'content-type': 'text/plain' },
      payload: `Hello {{ ${nameId} }}!`,
    });
    seen = lastReceived();
    expect(seen.method).toBe('PATCH');
    expect(seen.body.toString('utf8')).toBe('Hello Jane!');

    const binary = Buffer.from([0x7b, 0x7b, 0, 255, 0x7d, 0x7d, 1, 2]);
    await server.app.inject({
      method: 'POST',
      url: '/proxy/bin',
      headers: { 'svc-api-key': useKey, 'svc-proxy-url': base, 'content-type': 'application/octet-stream' },
      payload: binary,
    });
    seen = lastReceived();
    expect(seen.body.equals(binary)).toBe(true);
  });

  it('sends a body holding no expression as received when only a header value holds one', async () => {
    const payload = '{ "amount" : 1000,\n  "note": "{ {not one} }" }';
    await server.app.inject({
      method: 'POST',
      url: '/proxy',
      headers: {
        'svc-api-key': useKey,
        'svc-proxy-url': base,
        'content-type': 'application/json',
        authorization: `Bearer {{ ${nameId} }}`,
      },
      payload,
    });
    const seen = lastReceived();
    expect(seen.headers.authorization).toBe('Bearer Jane');
    expect(seen.body.toString('utf8')).toBe(payload);
  });

  it('forwards GET and DELETE and passes destination errors through untouched', async () => {
    destination.handle((req, res) => {
      res.statusCode = 418;
      res.setHeader('x-dest', 'yes');
      res.setHeader('content-type', 'text/plain');
      res.end(`teapot ${req.method}`);
    });
    try {
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await server.app.inject({
          method,
          url: '/proxy/x',
          headers: { 'svc-api-key': useKey, 'svc-proxy-url': base },
        });
        expect(response.statusCode).toBe(418);
        expect(response.body).toBe(`teapot ${method}`);
        expect(response.headers['x-dest']).toBe('yes');
        expect(response.headers['svc-proxy-destination-status']).toBe('418');
        expect(lastReceived().method).toBe(method);
      }
    } finally {
      destination.handle((req, res) => res.end(req.url));
    }
  });

  it('needs a private application key, a valid URL, and the tenant to allow ephemeral proxying', async () => {
    const before = destination.received.length;
    const ephemeralGet = (headers: Record<string, string>) =>
      server.app.inject({ method: 'GET', url: '/proxy', headers });
    const noKey = await ephemeralGet({ 'svc-proxy-url': base });
    expect(proxyErrorOf(noKey).status).toBe(401);
    const pub = await ephemeralGet({ 'svc-api-key': publicKey, 'svc-proxy-url': base });
    expect(proxyErrorOf(pub).status).toBe(403);
    const neither = await ephemeralGet({ 'svc-api-key': useKey });
    expect(proxyErrorOf(neither).errors).toHaveProperty('SVC-PROXY-URL');
    for (const url of ['http://api.svc.test/', `https://127.0.0.1:${destination.port}/`, 'not a url']) {
      const bad = await ephemeralGet({ 'svc-api-key': useKey, 'svc-proxy-url': url });
      expect(proxyErrorOf(bad).status).toBe(400);
    }
    const ssrf = await ephemeralGet({ 'svc-api-key': useKey, 'svc-proxy-url': 'https://private.svc.test/' });
    expect(proxyErrorOf(ssrf).code).toBe('DESTINATION_UNREACHABLE');

    await server.services.tenants.update(op, {
      name: fx.tenant.name,
      settings: { disable_ephemeral_proxy: 'true' },
    });
    try {
      const off = await ephemeralGet({ 'svc-api-key': useKey, 'svc-proxy-url': base });
      expect(proxyErrorOf(off).status).toBe(403);
      expect(proxyErrorOf(off).detail).toContain('disable_ephemeral_proxy');
    } finally {
      await server.services.tenants.update(op, { name: fx.tenant.name, settings: {} });
    }
    expect(destination.received.length).toBe(before);
  });

  it('refuses unknown tokens and tokens outside the grants alike (400), and more than 100 tokens, reaching nothing', async () => {
    const before = destination.received.length;
    const send = (payload: unknown) =>
      server.app.inject({
        method: 'POST',
        url: '/proxy',
        headers: { 'svc-api-key': publicKey, 'svc-proxy-url': base, 'content-type': 'application/json' },
        payload: payload as Record<string, unknown>,
      });
    // The public key may not open ephemeral proxies; the private key with a narrow rule may.
    const sendNarrow = (payload: unknown) =>
      server.app.inject({
        method: 'POST',
        url: '/proxy',
        headers: { 'svc-api-key': narrow.key, 'svc-proxy-url': base, 'content-type': 'application/json' },
        payload: payload as Record<string, unknown>,
      });
    expect(proxyErrorOf(await send({ a: 1 })).status).toBe(403);
    expect(proxyErrorOf(await sendNarrow({ a: '{{ no-such-token-id }}' })).status).toBe(400);
    expect(proxyErrorOf(await sendNarrow({ a: `{{ ${secretId} }}` })).status).toBe(400);
    const ids: string[] = [];
    for (let i = 0; i < 101; i += 1)
      ids.push((await server.services.tokens.create(op, { type: 'token', data: `v${i}` })).token.id);
    const tooMany = await sendNarrow({ values: ids.map((id) => `{{ ${id} }}`) });
    expect(proxyErrorOf(tooMany).status).toBe(400);
    const hundred = await sendNarrow({ values: ids.slice(0, 100).map((id) => `{{ ${id} }}`) });
    expect(hundred.statusCode).toBe(200);
    expect(JSON.parse(lastReceived().body.toString('utf8')).values[99]).toBe('v99');
    expect(destination.received.length).toBe(before + 1);
    const bad = await server.app.inject({
      method: 'POST',
      url: '/proxy',
      headers: { 'svc-api-key': useKey, 'svc-proxy-url': base, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(proxyErrorOf(bad).status).toBe(400);
  });

  it('answers a destination timeout with 408 in proxy_error', async () => {
    // A server of its own whose destination timeout is short: this case waits for it to run out,
    // and the other cases keep a timeout a loaded machine never reaches.
    const outbound = createOutboundClient(
      { allow: parseAllowList('127.0.0.0/8'), caPem: (await testPki()).caPem, timeoutMs: 150 },
      { resolve },
    );
    const brisk = await createTestServer({ serviceOptions: { outbound } });
    destination.handle(() => undefined);
    try {
      const tenant = await createTenantFixture(brisk.services, 'Brisk tenant');
      const { key } = await brisk.services.applications.create(operator(tenant.tenant.id), {
        name: 'use',
        type: 'private',
        rules: [rule('/', ['token:use'], 'reveal')],
      });
      const response = await brisk.app.inject({
        method: 'GET',
        url: '/proxy/slow',
        headers: { 'svc-api-key': key, 'svc-proxy-url': base },
      });
      expect(proxyErrorOf(response).status).toBe(408);
    } finally {
      destination.handle((req, res) => res.end(req.url));
      await brisk.dispose();
    }
  });
});

describe('pre-configured proxies', () => {
  it('routes by SVC-PROXY-KEY header or svc-proxy-key query, ignoring SVC-PROXY-URL', async () => {
    const proxy = await createProxy({});
    const byHeader = await server.app.inject({
      method: 'GET',
      url: '/proxy/a?x=1',
      headers: {
        'svc-api-key': useKey,
        'svc-proxy-key': proxy.key,
        'svc-proxy-url': 'https://other.svc.test/',
      },
    });
    expect(byHeader.statusCode, byHeader.body).toBe(200);
    expect(lastReceived().url).toBe('/base/a?x=1');
    expect(lastReceived().headers.host).toBe(`api.svc.test:${destination.port}`);
    const byQuery = await server.app.inject({
      method: 'GET',
      url: `/proxy/b?svc-proxy-key=${proxy.key}&y=2`,
      headers: { 'svc-api-key': useKey },
    });
    expect(byQuery.statusCode).toBe(200);
    expect(lastReceived().url).toBe('/base/b?y=2');
    const unknown = await server.app.inject({
      method: 'GET',
      url: '/proxy',
      headers: { 'svc-api-key': useKey, 'svc-proxy-key': 'nosuchkey' },
    });
    expect(proxyErrorOf(unknown).status).toBe(404);
    const noKey = await server.app.inject({
      method: 'GET',
      url: '/proxy',
      headers: { 'svc-proxy-key': proxy.key },
    });
    expect(proxyErrorOf(noKey).status).toBe(401);
    const other = await createTenantFixture(server.services, 'Other');
    const stranger = await createKey(server.services, other.tenant.id, 'private', ['token:use']);
    const foreign = await server.app.inject({
      method: 'GET',
      url: '/proxy',
      headers: { 'svc-api-key': stranger.key, 'svc-proxy-key': proxy.key },
    });
    expect(proxyErrorOf(foreign).status).toBe(404);
  });

  it('require_auth: false — anyone with the key; detokenization as the proxy application, none → 403', async () => {
    const open = await createProxy({ require_auth: false, application: { id: narrow.id } });
    const send = (key: string, payload: unknown) =>
      server.app.inject({
        method: 'POST',
        url: '/proxy',
        headers: { 'svc-proxy-key': key, 'content-type': 'application/json' },
        payload: payload as Record<string, unknown>,
      });
    const ok = await send(open.key, { n: `{{ ${nameId} }}` });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(JSON.parse(lastReceived().body.toString('utf8'))).toEqual({ n: 'Jane' });
    // The application's grants decide, not the caller's: /secret/ is outside them, so its token is
    // answered like an unknown id.
    expect(proxyErrorOf(await send(open.key, { n: `{{ ${secretId} }}` })).status).toBe(400);
    const bare = await createProxy({ require_auth: false });
    expect((await send(bare.key, { n: 'plain' })).statusCode).toBe(200);
    const before = destination.received.length;
    expect(proxyErrorOf(await send(bare.key, { n: `{{ ${nameId} }}` })).status).toBe(403);
    expect(proxyErrorOf(await send(bare.key, { n: '{{ no-such-token-id }}' })).status).toBe(403);
    expect(destination.received.length).toBe(before);
  });

  it('writes one audit entry per proxied request, with host, status and duration but no values', async () => {
    const proxy = await createProxy({});
    await server.app.inject({
      method: 'POST',
      url: '/proxy',
      headers: { 'svc-api-key': useKey, 'svc-proxy-key': proxy.key, 'content-type': 'application/json' },
      payload: { n: `{{ ${nameId} }}` },
    });
    await server.services.proxyInvoker.settled();
    const rows = await auditRows(server.temp.vault, fx.tenant.id);
    const invocations = rows.filter(
      (r) => r.entity_type === 'proxy' && r.entity_id === proxy.id && r.operation === 'invoke',
    );
    expect(invocations).toHaveLength(1);
    expect(invocations[0]?.message).toMatch(/^Proxy invoked: POST api\.svc\.test → 200 in \d+ ms$/);
    const uses = rows.filter((r) => r.entity_id === nameId && r.operation === 'use');
    expect(uses.length).toBeGreaterThan(0);
    // The data went to the destination in clear: each use says so.
    expect(uses.every((r) => r.revealed === 1)).toBe(true);
    for (const row of rows) expect(row.message).not.toContain('Jane');
    const ephemeral = rows.filter((r) => r.entity_id === 'ephemeral' && r.operation === 'invoke');
    expect(ephemeral.length).toBeGreaterThan(0);
    // The console's traffic view: the proxy's invocations alone, filtered by the server, the caller named.
    const traffic = await server.app.inject({
      method: 'GET',
      url: `/logs?entity_type=proxy&entity_id=${proxy.id}&operation=invoke&size=10`,
      headers: { 'svc-api-key': fx.admin.key },
    });
    expect(traffic.statusCode, traffic.body).toBe(200);
    expect((traffic.json() as { data: unknown[] }).data).toEqual([
      expect.objectContaining({ id: invocations[0]?.id, actor_name: 'use', operation: 'invoke' }),
    ]);
  });
});

describe('transforms', () => {
  const post = (key: string, payload: unknown, extra: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url: '/proxy/t?q=1',
      headers: { 'svc-api-key': useKey, 'svc-proxy-key': key, 'content-type': 'application/json', ...extra },
      payload: payload as Record<string, unknown>,
    });

  it('request transform sees the detokenized body, headers, method, path, query and configuration', async () => {
    const proxy = await createProxy({
      configuration: { PREFIX: 'cfg' },
      request_transform: {
        code: `module.exports = async function (req) {
  const { body, headers, method, path, query } = req.args;
  return {
    body: { wrapped: body, method, path, query, prefix: req.configuration.PREFIX, seen: headers['x-in'], ctor: headers.constructor },
    headers: { 'X-Added': 'by-transform', 'content-type': 'application/json' },
  };
};`,
      },
    });
    const response = await post(
      proxy.key,
      { n: `{{ ${nameId} }}` },
      { 'x-in': 'header-in', constructor: 'a header like any other' },
    );
    expect(response.statusCode, response.body).toBe(200);
    const seen = lastReceived();
    expect(JSON.parse(seen.body.toString('utf8'))).toEqual({
      wrapped: { n: 'Jane' },
      method: 'POST',
      path: '/t',
      query: '?q=1',
      prefix: 'cfg',
      seen: 'header-in',
      ctor: 'a header like any other',
    });
    expect(seen.headers['x-added']).toBe('by-transform');
    expect(seen.headers['x-in']).toBeUndefined();
  });

  it('response transform runs on 2xx destination responses only', async () => {
    const proxy = await createProxy({
      response_transform: {
        code: `module.exports = async (req) => ({ body: { got: req.args.body }, headers: { 'content-type': 'application/json', 'x-out': 'yes' } });`,
      },
    });
    destination.handle((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ secret: 'raw' }));
    });
    try {
      const ok = await post(proxy.key, {});
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toEqual({ got: { secret: 'raw' } });
      expect(ok.headers['x-out']).toBe('yes');
      expect(ok.headers['svc-proxy-destination-status']).toBe('200');
      destination.handle((_req, res) => {
        res.statusCode = 500;
        res.end('upstream broke');
      });
      const failed = await post(proxy.key, {});
      expect(failed.statusCode).toBe(500);
      expect(failed.body).toBe('upstream broke');
    } finally {
      destination.handle((req, res) => res.end(req.url));
    }
  });

  it('error classes from a transform come back in proxy_error; the destination is not called', async () => {
    const proxy = await createProxy({
      request_transform: {
        code: `const { AuthenticationError } = require('@svc/reactor-errors');
module.exports = async () => { throw new AuthenticationError('no way'); };`,
      },
    });
    const before = destination.received.length;
    const response = await post(proxy.key, {});
    expect(proxyErrorOf(response).status).toBe(401);
    expect(destination.received.length).toBe(before);
  });

  it('CustomHttpResponseError is answered as its own response', async () => {
    const proxy = await createProxy({
      request_transform: {
        code: `const { CustomHttpResponseError } = require('@svc/reactor-errors');
module.exports = async () => { throw new CustomHttpResponseError({ status: 418, headers: { 'X-Teapot': 'yes' }, body: { short: 'stout' } }); };`,
      },
    });
    const before = destination.received.length;
    const response = await post(proxy.key, {});
    expect(response.statusCode).toBe(418);
    expect(response.headers['x-teapot']).toBe('yes');
    expect(response.json()).toEqual({ short: 'stout' });
    expect(response.body).not.toContain('proxy_error');
    expect(destination.received.length).toBe(before);
  });

  it('req.svc acts as the proxy application (tokenizing before forwarding), null without one', async () => {
    const creator = await server.services.applications.create(op, {
      name: 'creator',
      type: 'private',
      permissions: ['token:create'],
    });
    const code = `module.exports = async (req) => {
  if (req.svc === null) return { body: { svc: null }, headers: req.args.headers };
  const token = await req.svc.tokens.create({ type: 'token', data: req.args.body.secret });
  return { body: { token: token.id }, headers: req.args.headers };
};`;
    const withApp = await createProxy({ application: { id: creator.id }, request_transform: { code } });
    const response = await post(withApp.key, { secret: 'top secret value' });
    expect(response.statusCode, response.body).toBe(200);
    const sent = JSON.parse(lastReceived().body.toString('utf8')) as { token: string };
    expect(lastReceived().body.toString('utf8')).not.toContain('top secret value');
    const stored = await server.services.tokens.get(op, sent.token);
    expect(stored.created_by).toBe(creator.id);
    const without = await createProxy({ request_transform: { code } });
    await post(without.key, { secret: 'x' });
    expect(JSON.parse(lastReceived().body.toString('utf8'))).toEqual({ svc: null });
  });
});

describe('attaching is granting: a proxy never publishes what its author may not see', () => {
  let backend: { id: string; key: string };
  let leakedId: string;

  /** A request transform answering the token's data itself (the destination is never contacted). */
  const leakCode = (id: string) => `const { CustomHttpResponseError } = require('@svc/reactor-errors');
module.exports = async (req) => {
  throw new CustomHttpResponseError({ status: 200, body: await req.svc.tokens.retrieve('${id}') });
};`;
  const leakyProxy = (applicationId: string) => ({
    name: 'leak',
    destination_url: `${base}/leak`,
    require_auth: false,
    application: { id: applicationId },
    request_transform: { code: leakCode(leakedId) },
  });
  /** The anonymous call: the proxy key in the query, no API key. */
  const anonymous = (proxyKey: string) =>
    server.app.inject({
      method: 'POST',
      url: `/proxy?svc-proxy-key=${proxyKey}`,
      headers: { 'content-type': 'application/json' },
      payload: {},
    });
  const as = (key: string, method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { 'svc-api-key': key },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  /** What a problem answer says, whatever its trace id. */
  const problemOf = (response: LightMyRequestResponse) => ({
    status: response.statusCode,
    body: response.json() as unknown,
  });

  beforeAll(async () => {
    // The tenant's backend: it creates tokens and reveals every one.
    backend = await server.services.applications.create(op, {
      name: 'backend',
      type: 'private',
      rules: [rule('/', ['token:create', 'token:read', 'token:use'], 'reveal')],
    });
    const principal = await server.services.auth.authenticateApiKey(backend.key);
    if (principal === null) throw new Error('no backend principal');
    leakedId = (await server.services.tokens.create(principal, { type: 'card', data: CARD })).token.id;
  });

  it("a token's created_by does not show the backend's id to a key that may not read applications", async () => {
    const reader = await createKey(server.services, fx.tenant.id, 'private', ['token:read']);
    const read = await as(reader.key, 'GET', `/tokens/${leakedId}`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ id: leakedId, created_by: null });
    expect(read.body).not.toContain(backend.id);
  });

  it('proxy:create alone cannot attach the backend: 403, nothing stored, the anonymous call answers no data', async () => {
    const attacker = await createKey(server.services, fx.tenant.id, 'management', ['proxy:create']);
    const before = destination.received.length;
    const created = await as(attacker.key, 'POST', '/proxies', leakyProxy(backend.id));
    if (created.statusCode === 201) {
      const leaked = await anonymous((created.json() as { key: string }).key);
      expect(leaked.body).not.toContain(CARD.number);
    }
    expect(created.statusCode, created.body).toBe(403);
    // An unknown application id gets exactly the same answer: attaching is no oracle for ids.
    const unknown = await as(attacker.key, 'POST', '/proxies', leakyProxy(randomUUID()));
    expect(problemOf(unknown)).toEqual(problemOf(created));
    // So does another tenant's application, and an application the attacker could see the type of.
    const other = await createTenantFixture(server.services, 'Other tenant');
    const foreign = await createKey(server.services, other.tenant.id, 'private', ['token:use']);
    expect(problemOf(await as(attacker.key, 'POST', '/proxies', leakyProxy(foreign.id)))).toEqual(
      problemOf(created),
    );
    expect(problemOf(await as(attacker.key, 'POST', '/proxies', leakyProxy(fx.admin.id)))).toEqual(
      problemOf(created),
    );
    const names = (await server.services.proxies.list(op, { name: 'leak' }, { page: 1, size: 100 })).items;
    expect(names).toEqual([]);
    expect(destination.received.length).toBe(before);
  });

  it('proxy:update alone cannot re-point a proxy at the backend', async () => {
    const attacker = await createKey(server.services, fx.tenant.id, 'management', ['proxy:update']);
    const harmless = await createProxy({ name: 'harmless' });
    const updated = await as(attacker.key, 'PUT', `/proxies/${harmless.id}`, leakyProxy(backend.id));
    if (updated.statusCode === 200) {
      const leaked = await anonymous(harmless.key);
      expect(leaked.body).not.toContain(CARD.number);
    }
    expect(updated.statusCode, updated.body).toBe(403);
    const unknown = await as(attacker.key, 'PUT', `/proxies/${harmless.id}`, leakyProxy(randomUUID()));
    expect(problemOf(unknown)).toEqual(problemOf(updated));
    const stored = await server.services.proxies.get(op, harmless.id);
    expect(stored).toMatchObject({ application_id: null, require_auth: true, request_transform: null });
    expect(proxyErrorOf(await anonymous(harmless.key)).status).toBe(401);
  });

  it('proxy:update cannot change what runs as an attached application, even keeping the application', async () => {
    const attacker = await createKey(server.services, fx.tenant.id, 'management', ['proxy:update']);
    // An administrator's proxy that runs as the backend and never shows data.
    const attached = await createProxy({
      name: 'charges',
      application: { id: backend.id },
      request_transform: { code: 'module.exports = async (req) => req.args;' },
    });
    const same = await as(attacker.key, 'PUT', `/proxies/${attached.id}`, leakyProxy(backend.id));
    if (same.statusCode === 200) expect((await anonymous(attached.key)).body).not.toContain(CARD.number);
    expect(same.statusCode, same.body).toBe(403);
    const renamed = await as(attacker.key, 'PUT', `/proxies/${attached.id}`, {
      name: 'renamed',
      destination_url: `${base}/base`,
      application: { id: backend.id },
      request_transform: { code: 'module.exports = async (req) => req.args;' },
    });
    expect(renamed.statusCode).toBe(403);
    // Detaching grants nothing, so proxy:update may do it.
    const detached = await as(attacker.key, 'PUT', `/proxies/${attached.id}`, {
      name: 'charges',
      destination_url: `${base}/base`,
    });
    expect(detached.statusCode, detached.body).toBe(200);
    expect(detached.json()).toMatchObject({ application_id: null });
  });

  it('an administrator still attaches it, and the anonymous proxy works as its author intended', async () => {
    const created = await as(fx.admin.key, 'POST', '/proxies', {
      name: 'public form',
      destination_url: `${base}/form`,
      require_auth: false,
      application: { id: backend.id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const sent = await server.app.inject({
      method: 'POST',
      url: `/proxy?svc-proxy-key=${(created.json() as { key: string }).key}`,
      headers: { 'content-type': 'application/json' },
      payload: { last4: `{{ ${leakedId} | json: '$.number' | last4 }}` },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(JSON.parse(lastReceived().body.toString('utf8'))).toEqual({ last4: '4242' });
  });
});

describe('one answer for every refused or unreachable destination', () => {
  it('the proxy answers a refused, an unresolvable and a closed destination alike; the log tells them apart', async () => {
    const closed = await startTestDestination();
    const closedPort = closed.port;
    await closed.close();
    const ask = (url: string) =>
      server.app.inject({
        method: 'GET',
        url: '/proxy/x?q=secret-query',
        headers: { 'svc-api-key': useKey, 'svc-proxy-url': url },
      });
    const before = server.logs.lines().length;
    const answers = [];
    for (const url of [
      'https://private.svc.test/',
      'https://loopback.internal.test/',
      'https://nowhere.example/',
      `https://api.svc.test:${closedPort}/`,
    ]) {
      const response = await ask(url);
      answers.push({ status: response.statusCode, error: proxyErrorOf(response) });
    }
    expect(answers[0]).toMatchObject({ status: 502, error: { code: 'DESTINATION_UNREACHABLE' } });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    const logged = server.logs
      .lines()
      .slice(before)
      .filter((line) => line['msg'] === 'outbound request failed')
      .map((line) => `${String(line['destination'])}: ${String(line['reason'])}`);
    expect(logged).toEqual([
      'private.svc.test: refused by the address policy: private.svc.test resolves to a private address',
      'loopback.internal.test: refused by the address policy: loopback.internal.test resolves to a loopback address',
      'nowhere.example: ENOTFOUND',
      'api.svc.test: ECONNREFUSED',
    ]);
    expect(server.logs.text()).not.toContain('secret-query');
  });

  it("the sandbox's fetch answers a loopback name and an unknown one alike", async () => {
    const proxy = await createProxy({
      request_transform: {
        code: `const { CustomHttpResponseError } = require('@svc/reactor-errors');
module.exports = async (req) => {
  const answers = [];
  for (const url of req.args.body.urls) {
    try { await fetch(url); answers.push('reached'); }
    catch (e) { answers.push({ name: e.name, message: e.message, status: e.status, code: e.code }); }
  }
  throw new CustomHttpResponseError({ status: 200, body: answers });
};`,
      },
    });
    const closed = await startTestDestination();
    const closedPort = closed.port;
    await closed.close();
    const response = await server.app.inject({
      method: 'POST',
      url: '/proxy',
      headers: { 'svc-api-key': useKey, 'svc-proxy-key': proxy.key, 'content-type': 'application/json' },
      payload: {
        urls: [
          'https://loopback.internal.test/',
          'https://private.svc.test/',
          'https://no-such-name.example/',
          `https://api.svc.test:${closedPort}/`,
        ],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const answers = response.json() as unknown[];
    expect(answers).toHaveLength(4);
    expect(answers[0]).toMatchObject({ status: 502, code: 'DESTINATION_UNREACHABLE' });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });
});

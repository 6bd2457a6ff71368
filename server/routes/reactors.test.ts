import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFICIAL_FORMULAS } from '../../core/reactors/official-formulas.ts';
import { createKey, createTenantFixture, operator, type TenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { rule } from '../test-support/tokens.ts';

let server: TestServer;
let tenant: TenantFixture;
let admin: Record<string, string>;
let user: Record<string, string>;
let appId: string;
let cardId: string;
let nameId: string;
let secretId: string;

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

beforeAll(async () => {
  server = await createTestServer({
    serviceOptions: { sandbox: { workers: 2, limits: { timeoutMs: 1500, memoryBytes: 16 * 1024 * 1024 } } },
  });
  tenant = await createTenantFixture(server.services, 'Reactors');
  admin = { 'svc-api-key': tenant.admin.key };
  const op = operator(tenant.tenant.id);
  cardId = (await server.services.tokens.create(op, { type: 'card', data: CARD })).token.id;
  nameId = (await server.services.tokens.create(op, { type: 'token', data: 'Ada' })).token.id;
  secretId = (await server.services.tokens.create(op, { data: 'hidden', containers: ['/secret/'] })).token.id;
  const caller = await server.services.applications.create(op, {
    name: 'caller',
    type: 'private',
    permissions: [],
    rules: [rule('/pci/', ['token:use'], 'reveal', 1), rule('/general/', ['token:use'], 'reveal', 2)],
  });
  user = { 'svc-api-key': caller.key };
  // The reactor's own application: creates and reads tokens, may not delete.
  appId = (
    await createKey(server.services, tenant.tenant.id, 'private', ['token:create', 'token:read'], 'bot')
  ).id;
});
afterAll(async () => server.dispose());

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: unknown,
) {
  const response = await server.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return {
    status: response.statusCode,
    body: response.body === '' ? null : (JSON.parse(response.body) as Record<string, unknown>),
    headers: response.headers,
  };
}

async function formula(code: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await call('POST', '/reactor-formulas', admin, {
    name: 'f',
    type: 'private',
    code,
    configuration: [],
    request_parameters: [],
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body?.['id'] as string;
}

async function reactor(formulaId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await call('POST', '/reactors', admin, {
    name: 'r',
    formula: { id: formulaId },
    configuration: {},
    application: { id: appId },
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body?.['id'] as string;
}

const react = (id: string, args: unknown, headers = user) =>
  call('POST', `/reactors/${id}/react`, headers, { args });

describe('reactor formulas', () => {
  it('round-trip: create, get, list with official ones and filters, full-replacement update, delete', async () => {
    const id = await formula('module.exports = async () => ({});', {
      name: 'Stripe charge',
      description: 'd',
      configuration: [{ name: 'API_KEY', type: 'string' }],
      request_parameters: [{ name: 'card.number', type: 'string' }],
    });
    const got = await call('GET', `/reactor-formulas/${id}`, admin);
    expect(got.body).toMatchObject({
      id,
      name: 'Stripe charge',
      type: 'private',
      status: 'verified',
      configuration: [{ name: 'API_KEY', type: 'string' }],
      request_parameters: [{ name: 'card.number', type: 'string', optional: false }],
    });
    const list = await call('GET', '/reactor-formulas?name=stripe*', admin);
    expect((list.body?.['data'] as Array<{ id: string }>).map((f) => f.id)).toEqual([id]);
    const all = await call('GET', '/reactor-formulas?size=100', admin);
    const ids = (all.body?.['data'] as Array<{ id: string; type: string }>).map((f) => f.id);
    for (const official of OFFICIAL_FORMULAS) expect(ids).toContain(official.id);
    const byId = await call('GET', `/reactor-formulas?id=${id}`, admin);
    expect(byId.body?.['pagination']).toMatchObject({ total_items: 1 });
    const updated = await call('PUT', `/reactor-formulas/${id}`, admin, {
      name: 'Renamed',
      type: 'private',
      code: 'module.exports = async () => ({ raw: 1 });',
    });
    expect(updated.body).toMatchObject({
      name: 'Renamed',
      description: null,
      configuration: [],
      request_parameters: [],
    });
    expect(updated.body?.['modified_at']).toBeTruthy();
    expect((await call('DELETE', `/reactor-formulas/${id}`, admin)).status).toBe(204);
    expect((await call('GET', `/reactor-formulas/${id}`, admin)).status).toBe(404);
  });

  it('checks code: 422 with line and column; one exported function', async () => {
    const bad = await call('POST', '/reactor-formulas', admin, {
      name: 'bad',
      type: 'private',
      code: 'module.exports = async function (req) {\n  return {\n};',
    });
    expect(bad.status).toBe(422);
    expect(bad.body?.['detail']).toMatch(/line \d+, column \d+/);
    const notFn = await call('POST', '/reactor-formulas', admin, {
      name: 'bad',
      type: 'private',
      code: 'module.exports = 1;',
    });
    expect(notFn.status).toBe(422);
  });

  it.each([
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ type: 'official' }, 'type'],
    [{ icon: 'data:image/gif;base64,AAAA' }, 'icon'],
    [{ configuration: [{ name: 'a.b', type: 'string' }] }, 'configuration[0].name'],
    [{ configuration: [{ name: 'a', type: 'date' }] }, 'configuration[0].type'],
    [{ request_parameters: [{ name: 'x', type: 'string' }] }, 'request_parameters[0].name'],
    [
      {
        request_parameters: [
          { name: 'ab', type: 'string' },
          { name: 'ab', type: 'number' },
        ],
      },
      'request_parameters[1].name',
    ],
  ])('refuses %j → 400 naming %s', async (change, field) => {
    const r = await call('POST', '/reactor-formulas', admin, {
      name: 'f',
      type: 'private',
      code: 'module.exports = async () => ({});',
      ...change,
    });
    expect(r.status).toBe(400);
    expect(Object.keys((r.body?.['errors'] as object) ?? {})).toContain(field);
  });

  it('official formulas are read-only and a formula in use cannot be deleted', async () => {
    const official = OFFICIAL_FORMULAS[0]?.id as string;
    expect(
      (
        await call('PUT', `/reactor-formulas/${official}`, admin, {
          name: 'x',
          type: 'private',
          code: 'module.exports = async () => ({});',
        })
      ).status,
    ).toBe(403);
    expect((await call('DELETE', `/reactor-formulas/${official}`, admin)).status).toBe(403);
    const id = await formula('module.exports = async () => ({});');
    await reactor(id);
    expect((await call('DELETE', `/reactor-formulas/${id}`, admin)).status).toBe(409);
  });
});

describe('reactors', () => {
  it('round-trip with the formula and application embedded; formula given whole; configuration contract', async () => {
    const f = await call(
      'GET',
      `/reactor-formulas/${await formula('module.exports = async () => ({});', {
        configuration: [
          { name: 'region', type: 'string' },
          { name: 'retries', type: 'number' },
        ],
      })}`,
      admin,
    );
    const created = await call('POST', '/reactors', admin, {
      name: 'Mine',
      formula: f.body,
      configuration: { region: 'eu', retries: '3' },
      application: { id: appId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Mine',
      configuration: { region: 'eu', retries: 3 },
      formula: { id: f.body?.['id'], code: expect.any(String) },
      application: { id: appId, name: 'bot' },
    });
    expect(JSON.stringify(created.body)).not.toContain('"key"');
    const id = created.body?.['id'] as string;
    const missing = await call('PUT', `/reactors/${id}`, admin, {
      name: 'Mine',
      configuration: { region: 'eu' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body?.['errors']).toHaveProperty(['configuration.retries']);
    const extra = await call('PUT', `/reactors/${id}`, admin, {
      name: 'Mine',
      configuration: { region: 'eu', retries: 1, other: 'x' },
    });
    expect(extra.body?.['errors']).toHaveProperty(['configuration.other']);
    const replaced = await call('PUT', `/reactors/${id}`, admin, {
      name: 'Theirs',
      configuration: { region: 'us', retries: 2 },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).not.toHaveProperty('application');
    expect((await call('GET', `/reactors?name=*eir*`, admin)).body?.['data']).toHaveLength(1);
    expect((await call('GET', `/reactors?id=${id}`, admin)).body?.['pagination']).toMatchObject({
      total_items: 1,
    });
    expect((await call('DELETE', `/reactors/${id}`, admin)).status).toBe(204);
    expect((await call('GET', `/reactors/${id}`, admin)).status).toBe(404);
  });
});

describe('react', () => {
  let echo: string;
  let typed: string;
  beforeAll(async () => {
    echo = await reactor(await formula('module.exports = async (req) => ({ raw: req.args });'));
    typed = await reactor(
      await formula('module.exports = async (req) => ({ raw: req.args });', {
        request_parameters: [
          { name: 'card.number', type: 'string' },
          { name: 'amount', type: 'number' },
          { name: 'capture', type: 'boolean', optional: true },
          { name: 'note', type: 'string', optional: true },
        ],
      }),
    );
  });

  it('detokenizes args: primitive, complex, mixed, filters', async () => {
    const r = await react(echo, {
      card: `{{ ${cardId} }}`,
      greeting: `Hi {{${nameId}}}!`,
      last4: `{{ ${cardId} | json: '$.number' | last4 }}`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ raw: { card: CARD, greeting: 'Hi Ada!', last4: '4242' } });
  });

  it('403 without token:use on a token container, 400 for an unknown token, 400 over 100 tokens', async () => {
    expect((await react(echo, { s: `{{${secretId}}}` })).status).toBe(403);
    expect((await react(echo, { s: '{{ no-such-token }}' })).status).toBe(400);
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, `{{ t${i}x }}`]));
    const over = await react(echo, many);
    expect(over.status).toBe(400);
    expect(over.body?.['detail']).toContain('100');
  });

  it.each([
    [{ card: { number: 4242 }, amount: '12.5' }, 200, { card: { number: '4242' }, amount: 12.5 }],
    [
      { card: { number: 'x' }, amount: 3, capture: 'TRUE', extra: 1 },
      200,
      { card: { number: 'x' }, amount: 3, capture: true, extra: 1 },
    ],
    [{ amount: 1 }, 400, { 'args.card.number': ['is required'] }],
    [{ card: { number: 'x' }, amount: 'twelve' }, 400, { 'args.amount': ['must be a number'] }],
    [{ card: { number: 'x' }, amount: 1, capture: 'yes' }, 400, { 'args.capture': ['must be a boolean'] }],
    [{ card: { number: 'x' }, amount: 1, note: { a: 1 } }, 400, { 'args.note': ['must be a string'] }],
    [{ Card: { number: 'x' }, amount: 1 }, 400, { 'args.card.number': ['is required'] }],
  ])('validates and casts args %j', async (args, status, expected) => {
    const r = await react(typed, args);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    if (status === 200) expect(r.body).toEqual({ raw: expected });
    else expect(r.body?.['errors']).toEqual(expected);
  });

  it('one complex token supplies several declared parameters', async () => {
    const r = await react(typed, { card: `{{${cardId}}}`, amount: 1 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ raw: { card: CARD } });
  });

  it('tokenizes the tokenize output as the reactor application; svc calls go through its permissions', async () => {
    const id = await reactor(
      await formula(`module.exports = async (req) => {
        const token = await req.svc.tokens.create({ type: 'token', data: req.args.secret });
        let denied = null;
        try { await req.svc.tokens.delete(token.id); } catch (e) { denied = e.status; }
        return { raw: { createdBy: token.createdBy, denied }, tokenize: { a: req.args.secret } };
      };`),
    );
    const r = await react(id, { secret: `{{${nameId}}}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body?.['raw']).toEqual({ createdBy: appId, denied: 403 });
    const tokenized = (r.body?.['tokens'] as { a: string }).a;
    expect(typeof tokenized).toBe('string');
    expect(tokenized).not.toBe('Ada');
  });

  it('tokenize without an application is 400 Invalid Reactor Configuration', async () => {
    const id = await reactor(await formula('module.exports = async (req) => ({ tokenize: { a: 1 } });'), {
      application: null,
    });
    const r = await react(id, {});
    expect(r.status).toBe(400);
    expect(r.body?.['detail']).toBe('Invalid Reactor Configuration');
  });

  it('official Tokenize formula runs', async () => {
    const id = await reactor(OFFICIAL_FORMULAS[0]?.id as string);
    const r = await react(id, { name: `{{${nameId}}}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(typeof (r.body?.['tokens'] as { name: unknown }).name).toBe('string');
  });

  it('CustomHttpResponseError answers its own status, headers and body', async () => {
    const id = await reactor(
      await formula(`const { CustomHttpResponseError } = require('@svc/reactor-errors');
        module.exports = async () => { throw new CustomHttpResponseError({ status: 402, headers: { 'X-Why': 'card' }, body: { declined: true } }); };`),
    );
    const r = await react(id, {});
    expect(r.status).toBe(402);
    expect(r.headers['x-why']).toBe('card');
    expect(r.body).toEqual({ declined: true });
  });

  it('audits every invocation without args or results', async () => {
    const logs = await call('GET', `/logs?entity_type=reactor&size=100`, admin);
    const entries = logs.body?.['data'] as Array<{ operation: string; message: string }>;
    expect(entries.some((e) => e.operation === 'invoke' && e.message === 'Reactor invoked')).toBe(true);
    expect(entries.some((e) => e.message === 'Reactor invocation failed')).toBe(true);
    expect(JSON.stringify(logs.body)).not.toContain(CARD.number);
  });
});

/** Hostile formulas: each fails cleanly with the right problem, and the next invocation still works. */
const HOSTILE: Array<[string, string, number | number[]]> = [
  [
    'constructor walk to process',
    `module.exports = async () => ({ raw: (function(){}).constructor('return typeof process')() });`,
    200,
  ],
  [
    'Function constructor reads process',
    `module.exports = async () => { return { raw: Function('return process.env')() }; };`,
    500,
  ],
  [
    'prototype walk to a host object',
    `module.exports = async (req) => ({ raw: req.constructor.constructor('return this')().process === undefined });`,
    200,
  ],
  ['require fs', `module.exports = async () => { require('fs'); };`, 500],
  [
    'require child_process',
    `module.exports = async () => { require('child_process').execSync('id'); };`,
    500,
  ],
  ['require node:fs', `module.exports = async () => { require('node:fs'); };`, 500],
  ['dynamic import', `module.exports = async () => { await import('fs'); };`, 500],
  [
    'globalThis enumeration',
    `module.exports = async () => ({ raw: Object.getOwnPropertyNames(globalThis).filter((n) => /process|require|Buffer|setTimeout|__/.test(n)) });`,
    200,
  ],
  ['infinite loop', `module.exports = async () => { for (;;) {} };`, 408],
  [
    'infinite loop in module body at invoke',
    `module.exports = async () => { while (true) { Math.random(); } };`,
    408,
  ],
  ['infinite loop in a promise job', `module.exports = async () => { await null; for (;;) {} };`, 408],
  ['deep recursion', `function f(n) { return f(n + 1) + 1; } module.exports = async () => f(0);`, 500],
  [
    'memory bomb (array of strings)',
    `module.exports = async () => { const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length); };`,
    500,
  ],
  ['memory bomb (string doubling)', `module.exports = async () => { let s = 'x'; for (;;) s += s; };`, 500],
  [
    'typed array bomb',
    `module.exports = async () => { const a = []; for (;;) a.push(new Uint8Array(8 << 20)); };`,
    500,
  ],
  ['huge output', `module.exports = async () => ({ raw: 'x'.repeat(3 << 20) });`, 500],
  [
    'promise flood',
    `module.exports = async () => { const ps = []; for (let i = 0; i < 1e6; i++) ps.push(Promise.resolve(i)); await Promise.all(ps); for (;;) {} };`,
    [408, 500],
  ],
  ['never-settling promise', `module.exports = () => new Promise(() => {});`, 500],
  ['setTimeout', `module.exports = async () => { setTimeout(() => {}, 10); };`, 500],
  ['setInterval', `module.exports = async () => { setInterval(() => {}, 10); };`, 500],
  [
    'state from another invocation',
    `module.exports = async () => ({ raw: typeof globalThis.leaked === 'undefined' ? 'clean' : 'dirty', set: (globalThis.leaked = 1) });`,
    200,
  ],
  [
    'svc beyond the application permissions (delete)',
    `module.exports = async (req) => { await req.svc.tokens.delete('anything'); };`,
    500,
  ],
  [
    'svc search without token:search',
    `module.exports = async (req) => { await req.svc.tokens.search({ query: 'id:x' }); };`,
    500,
  ],
  [
    'svc host-call flood',
    `module.exports = async (req) => { await Promise.all(Array.from({ length: 1000 }, () => req.svc.tokens.retrieve('x'))); };`,
    500,
  ],
  ['fetch to 127.0.0.1', `module.exports = async () => { await fetch('https://127.0.0.1/'); };`, 500],
  ['fetch to a private range', `module.exports = async () => { await fetch('https://10.0.0.1/'); };`, 500],
  ['fetch to a file URL', `module.exports = async () => { await fetch('file:///etc/passwd'); };`, 500],
  [
    'eval escape',
    `module.exports = async () => ({ raw: eval('typeof require') + eval('typeof process') });`,
    200,
  ],
  [
    'error message leak',
    `module.exports = async (req) => { throw new Error(JSON.stringify(req.args)); };`,
    500,
  ],
  ['toJSON loop on output', `module.exports = async () => ({ raw: { toJSON() { for (;;) {} } } });`, 408],
  ['circular output', `module.exports = async () => { const o = {}; o.o = o; return { raw: o }; };`, 500],
  [
    'overwritten JSON.stringify',
    `module.exports = async () => { JSON.stringify = () => { throw new Error('x'); }; return { raw: 1 }; };`,
    [200, 500],
  ],
  [
    'huge thrown errors map',
    `const { BadRequestError } = require('@svc/reactor-errors'); module.exports = async () => { throw new BadRequestError(Object.fromEntries(Array.from({ length: 10000 }, (_, i) => ['k' + i, 'v']))); };`,
    400,
  ],
  [
    'Proxy trap on the result',
    `module.exports = async () => new Proxy({}, { get() { for (;;) {} } });`,
    [408, 500],
  ],
];

describe('sandbox escape suite', () => {
  let healthy: string;
  beforeAll(async () => {
    healthy = await reactor(await formula('module.exports = async () => ({ raw: "ok" });'));
  });

  it('has at least 30 hostile formulas', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
  });

  it.each(HOSTILE)('%s fails cleanly and the next invocation works', async (_name, code, status) => {
    const id = await reactor(await formula(code));
    const r = await react(id, { secret: `{{${nameId}}}` });
    expect([status].flat(), `${r.status} ${JSON.stringify(r.body)}`).toContain(r.status);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain('Ada');
    expect(text).not.toMatch(/\/work\/|node:internal|at Object\./);
    if (r.status === 200) {
      const raw = JSON.stringify(r.body?.['raw']);
      expect(raw).not.toMatch(/"function"|"object"/);
      expect(raw).not.toContain('dirty');
    }
    const next = await react(healthy, {});
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ raw: 'ok' });
  });
});

describe('official HTTPS JSON request formula', () => {
  it('sends args.body through the injected outbound function and returns status and body', async () => {
    const seen: Array<{ url: string; method: string; body: string | null }> = [];
    const withNetwork = await createTestServer({
      serviceOptions: {
        sandbox: {
          workers: 1,
          limits: { timeoutMs: 3000 },
          fetch: async (request) => {
            seen.push({ url: request.url, method: request.method, body: request.body });
            return { status: 200, statusText: 'OK', url: request.url, headers: [], body: '{"charged":true}' };
          },
        },
      },
    });
    try {
      const t = await createTenantFixture(withNetwork.services, 'Network');
      const op = operator(t.tenant.id);
      const official = OFFICIAL_FORMULAS[1]?.id as string;
      const r = await withNetwork.services.reactors.create(op, {
        name: 'pay',
        formula: { id: official },
        configuration: { url: 'https://pay.example/charge', method: 'POST' },
      });
      const result = await withNetwork.services.reactors.react(op, r.id, { body: { amount: 5 } });
      expect(result).toEqual({ kind: 'response', body: { raw: { status: 200, body: { charged: true } } } });
      expect(seen).toEqual([{ url: 'https://pay.example/charge', method: 'POST', body: '{"amount":5}' }]);
      const refused = await withNetwork.services.reactors.create(op, {
        name: 'plain http',
        formula: { id: official },
        configuration: { url: 'http://pay.example/', method: 'POST' },
      });
      await expect(withNetwork.services.reactors.react(op, refused.id, {})).rejects.toMatchObject({
        status: 400,
        errors: { url: ['must be an https URL'] },
      });
    } finally {
      await withNetwork.dispose();
    }
  });
});

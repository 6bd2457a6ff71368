import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFICIAL_FORMULAS } from '../../core/reactors/official-formulas.ts';
import { createKey, createTenantFixture, operator } from '../test-support/identity.ts';
import { createTestServer } from '../test-support/test-server.ts';
import { CARD, ReactorWorld } from '../test-support/reactors.ts';
import { rule } from '../test-support/tokens.ts';

let world: ReactorWorld;
let admin: Record<string, string>;
let appId: string;
let cardId: string;
let nameId: string;
let secretId: string;

beforeAll(async () => {
  world = await ReactorWorld.create();
  ({ admin, appId, cardId, nameId, secretId } = world);
});
afterAll(async () => world.dispose());

const call: ReactorWorld['call'] = (...args) => world.call(...args);
const formula: ReactorWorld['formula'] = (...args) => world.formula(...args);
const reactor: ReactorWorld['reactor'] = (...args) => world.reactor(...args);
const react: ReactorWorld['react'] = (...args) => world.react(...args);

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

  it('saves code that does not compile with a warning, and answers 422 with its place at invocation', async () => {
    // One line whose `//` comment swallows the rest, as a client that joins lines sends it.
    const code =
      ' module.exports = async function (req) { // Do something with `req.configuration.KEY`return { raw: 1 }; };';
    const created = await call('POST', '/reactor-formulas', admin, { name: 'joined', type: 'private', code });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ code });
    expect(Object.keys(created.body ?? {})).not.toContain('warnings');
    const warning = `Invalid Reactor Formula: line 1, column ${code.length + 1}: SyntaxError: expecting ';'`;
    expect(created.headers['svc-warning']).toBe(warning);
    const id = created.body?.['id'] as string;
    expect((await call('GET', `/reactor-formulas/${id}`, admin)).body).toMatchObject({ code });

    const invoked = await react(await reactor(id), {});
    expect(invoked.status).toBe(422);
    expect(invoked.body).toMatchObject({ code: 'UNPROCESSABLE', detail: warning });

    // An update that still does not compile warns at its own line; one that compiles does not warn.
    const later = 'module.exports = async function (req) {\n  return { raw: 1 + };\n};';
    const updated = await call('PUT', `/reactor-formulas/${id}`, admin, {
      name: 'j',
      type: 'private',
      code: later,
    });
    expect(updated.status).toBe(200);
    expect(updated.headers['svc-warning']).toMatch(
      /^Invalid Reactor Formula: line 2, column 21: SyntaxError: /,
    );
    const fixed = await call('PUT', `/reactor-formulas/${id}`, admin, {
      name: 'j',
      type: 'private',
      code: 'module.exports = async () => ({ raw: 1 });',
    });
    expect(fixed.status).toBe(200);
    expect(fixed.headers['svc-warning']).toBeUndefined();

    const notFn = await call('POST', '/reactor-formulas', admin, {
      name: 'not a function',
      type: 'private',
      code: 'module.exports = 1;',
    });
    expect(notFn.status).toBe(201);
    expect(notFn.headers['svc-warning']).toMatch(/must export one function/);
  });

  it('answers an unexpected throw with a generic 500 REACTOR_RUNTIME: no message, no errors', async () => {
    const secret = '4242424242424242';
    for (const [thrown, status, code] of [
      [`new TypeError('card ${secret}')`, 500, 'REACTOR_RUNTIME'],
      [`new E.ReactorRuntimeError('card ${secret}')`, 500, 'REACTOR_RUNTIME'],
      [`new E.ServiceUnavailableError('card ${secret}')`, 503, 'SERVICE_UNAVAILABLE'],
    ] as const) {
      const id = await formula(
        `const E = require('@svc/reactor-errors');\nmodule.exports = async () => { throw ${thrown}; };`,
      );
      const answer = await react(await reactor(id), {});
      expect(answer.status, thrown).toBe(status);
      expect(answer.body, thrown).toMatchObject({ code, detail: expect.stringContaining('SVC-TRACE-ID') });
      expect(Object.keys(answer.body ?? {}), thrown).not.toContain('errors');
      expect(JSON.stringify(answer.body), thrown).not.toContain(secret);
    }
    // What the code put in its error may be token data: the server log names the class only.
    expect(world.server.logs.text()).toContain('the reactor code threw TypeError');
    expect(world.server.logs.text()).not.toContain(secret);
  });

  it('keeps an icon exactly as sent, a space after the comma included', async () => {
    const icon =
      'data:image/png;base64, iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';
    const id = await formula('module.exports = async () => ({});', { icon });
    expect((await call('GET', `/reactor-formulas/${id}`, admin)).body?.['icon']).toBe(icon);
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

  it('400 for an unknown token and alike for one outside the token:use containers, 400 over 100 tokens', async () => {
    const outside = await react(echo, { s: `{{${secretId}}}` });
    const unknown = await react(echo, { s: '{{ no-such-token }}' });
    expect(unknown.status).toBe(400);
    const shape = (r: typeof unknown) => ({ status: r.status, body: r.body });
    expect(JSON.stringify(shape(outside)).replaceAll(secretId, 'ID')).toBe(
      JSON.stringify(shape(unknown)).replaceAll('no-such-token', 'ID'),
    );
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

  it('req.svc.tokens.retrieve answers a token outside its application like an unknown id', async () => {
    const op = operator(world.tenant.tenant.id);
    const general = await world.server.services.applications.create(op, {
      name: 'general reader',
      type: 'private',
      rules: [rule('/general/', ['token:read'], 'reveal')],
    });
    const id = await reactor(
      await formula(`module.exports = async (req) => {
        const answers = [];
        for (const id of req.args.ids) {
          try { answers.push((await req.svc.tokens.retrieve(id)).data); }
          catch (e) { answers.push({ name: e.name, message: e.message, status: e.status, code: e.code }); }
        }
        return { raw: answers };
      };`),
      { application: { id: general.id } },
    );
    const r = await react(id, { ids: [nameId, secretId, 'no-such-token'] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [shown, outside, unknown] = r.body?.['raw'] as unknown[];
    expect(shown).toBe('Ada');
    expect(outside).toEqual(unknown);
    expect(unknown).toMatchObject({ status: 404, code: 'NOT_FOUND' });
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

describe('attaching is granting: a reactor never runs with access its author lacks', () => {
  const LEAK = 'module.exports = async (req) => ({ raw: await req.svc.tokens.retrieve(req.args.id) });';
  let backendId: string;
  let leakedId: string;
  /** A key holding token:use on an empty container only: enough to invoke reactors. */
  let invoker: Record<string, string>;
  let reactorCreator: Record<string, string>;
  let reactorUpdater: Record<string, string>;

  beforeAll(async () => {
    const { services } = world.server;
    const tenantId = world.tenant.tenant.id;
    const op = operator(tenantId);
    const backend = await services.applications.create(op, {
      name: 'backend',
      type: 'private',
      rules: [rule('/', ['token:create', 'token:read', 'token:use'], 'reveal')],
    });
    backendId = backend.id;
    const principal = await services.auth.authenticateApiKey(backend.key);
    if (principal === null) throw new Error('no backend principal');
    leakedId = (await services.tokens.create(principal, { type: 'card', data: CARD })).token.id;
    const empty = await services.applications.create(op, {
      name: 'invoker',
      type: 'private',
      rules: [rule('/empty/', ['token:use'], 'reveal')],
    });
    invoker = { 'svc-api-key': empty.key };
    reactorCreator = {
      'svc-api-key': (await createKey(services, tenantId, 'management', ['reactor:create'])).key,
    };
    reactorUpdater = {
      'svc-api-key': (await createKey(services, tenantId, 'management', ['reactor:update'])).key,
    };
  });

  /** Invokes the reactor as the empty-container key: it must never answer the card number. */
  const replay = async (reactorId: string) => {
    const r = await react(reactorId, { id: leakedId }, invoker);
    expect(JSON.stringify(r.body)).not.toContain(CARD.number);
  };

  it('reactor:create alone cannot attach the backend; an unknown id gets the same answer', async () => {
    const formulaId = await call('POST', '/reactor-formulas', reactorCreator, {
      name: 'leak',
      type: 'private',
      code: LEAK,
    });
    expect(formulaId.status, JSON.stringify(formulaId.body)).toBe(201);
    const body = (applicationId: string) => ({
      name: 'leak',
      formula: { id: formulaId.body?.['id'] },
      configuration: {},
      application: { id: applicationId },
    });
    const created = await call('POST', '/reactors', reactorCreator, body(backendId));
    if (created.status === 201) await replay(created.body?.['id'] as string);
    expect(created.status, JSON.stringify(created.body)).toBe(403);
    const unknown = await call(
      'POST',
      '/reactors',
      reactorCreator,
      body('0b5a7b54-0000-4000-8000-000000000000'),
    );
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: created.status,
      body: created.body,
    });
    const management = await call('POST', '/reactors', reactorCreator, body(world.tenant.admin.id));
    expect({ status: management.status, body: management.body }).toEqual({
      status: created.status,
      body: created.body,
    });
    // Without an application the reactor holds no access, and may be made.
    const bare = await call('POST', '/reactors', reactorCreator, { ...body(backendId), application: null });
    expect(bare.status).toBe(201);
    // req.svc is null there: the code fails.
    const r = await react(bare.body?.['id'] as string, { id: leakedId }, invoker);
    expect(r.status).toBe(500);
    expect(JSON.stringify(r.body)).not.toContain(CARD.number);
  });

  it('reactor:update alone can neither re-point a reactor at the backend nor change the code of one that runs as it', async () => {
    const harmless = await formula('module.exports = async () => ({ raw: "ok" });');
    const unattached = await reactor(harmless, { application: null });
    // Its code may change: nothing runs with any access yet.
    const recoded = await call('PUT', `/reactor-formulas/${harmless}`, reactorUpdater, {
      name: 'f',
      type: 'private',
      code: LEAK,
    });
    expect(recoded.status, JSON.stringify(recoded.body)).toBe(200);
    const repointed = await call('PUT', `/reactors/${unattached}`, reactorUpdater, {
      name: 'r',
      configuration: {},
      application: { id: backendId },
    });
    if (repointed.status === 200) await replay(unattached);
    expect(repointed.status, JSON.stringify(repointed.body)).toBe(403);

    // An administrator's reactor that runs as the backend and shows nothing.
    const safe = await formula('module.exports = async () => ({ raw: "charged" });');
    const attached = await reactor(safe, { application: { id: backendId } });
    const changed = await call('PUT', `/reactor-formulas/${safe}`, reactorUpdater, {
      name: 'f',
      type: 'private',
      code: LEAK,
    });
    if (changed.status === 200) await replay(attached);
    expect(changed.status, JSON.stringify(changed.body)).toBe(403);
    const renamed = await call('PUT', `/reactors/${attached}`, reactorUpdater, {
      name: 'renamed',
      configuration: {},
      application: { id: backendId },
    });
    expect(renamed.status).toBe(403);
    expect((await react(attached, { id: leakedId }, invoker)).body).toEqual({ raw: 'charged' });
    // The administrator may do both.
    expect(
      (
        await call('PUT', `/reactors/${attached}`, admin, {
          name: 'renamed',
          configuration: {},
          application: { id: backendId },
        })
      ).status,
    ).toBe(200);
  });

  it('reactor and formula answers show actor ids only to callers who may read applications', async () => {
    const id = await formula('module.exports = async () => ({});');
    const made = await reactor(id);
    const reader = {
      'svc-api-key': (
        await createKey(world.server.services, world.tenant.tenant.id, 'management', ['reactor:read'])
      ).key,
    };
    const seen = await call('GET', `/reactors/${made}`, reader);
    expect(seen.body).toMatchObject({ created_by: null, formula: { created_by: null } });
    const full = await call('GET', `/reactors/${made}`, admin);
    expect(full.body).toMatchObject({
      created_by: world.tenant.admin.id,
      formula: { created_by: world.tenant.admin.id },
    });
  });
});

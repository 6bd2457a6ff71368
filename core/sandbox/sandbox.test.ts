import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTurnsWhile } from '../test-support/event-loop.ts';
import { ERROR_FALLBACK, REACTOR_ERROR_CLASSES, createSandbox } from './index.ts';
import type { OutboundRequest, Sandbox, SandboxOutcome } from './index.ts';

let sandbox: Sandbox;
const fetched: OutboundRequest[] = [];

beforeAll(() => {
  sandbox = createSandbox({
    workers: 2,
    limits: { timeoutMs: 1500, memoryBytes: 16 * 1024 * 1024, outputBytes: 64 * 1024 },
    fetch: async (request) => {
      fetched.push(request);
      return {
        status: 201,
        statusText: 'Created',
        url: request.url,
        headers: [['x-a', '1']],
        body: '{"ok":true}',
      };
    },
  });
});
afterAll(async () => sandbox.close());

const run = (code: string, args: unknown = {}, svc: Parameters<Sandbox['runModule']>[0]['svc'] = null) =>
  sandbox.runModule({ tenant: 'tenant-a', code, args, configuration: { region: 'eu' }, svc });

const throwing = (expression: string) =>
  `const E = require('@svc/reactor-errors');\nmodule.exports = async function () { throw ${expression}; };`;

function problem(outcome: SandboxOutcome) {
  if (outcome.kind !== 'problem') throw new Error(`expected a problem, got ${JSON.stringify(outcome)}`);
  const { code, status, detail, errors } = outcome.error;
  return { code, status, detail, errors };
}

describe('checkModuleCode', () => {
  it('accepts a module exporting one function', async () => {
    expect(
      await sandbox.checkModuleCode('module.exports = async function (req) { return {}; };', 'tenant-a'),
    ).toBeNull();
  });

  it.each([
    ['const a = 1;\nconst b = ;\n', /^Invalid Reactor Formula: line 2, column \d+: SyntaxError/],
    ['module.exports = 42;', /must export one function/],
    ['module.exports = { handler() {} };', /must export one function/],
    ['throw new Error("boom");', /threw while loading/],
    ['for (;;) {}', /took longer than/],
  ])('refuses %j with 422', async (code, detail) => {
    const error = await sandbox.checkModuleCode(code, 'tenant-a');
    expect(error?.status).toBe(422);
    expect(error?.detail).toMatch(detail);
  });
});

describe('compile errors name their place in the code', () => {
  it.each([
    // On line 1: the column is where the parser stopped.
    ['module.exports = async function (req) { return { raw: 1 +  } };', 'line 1, column 60'],
    // On a later line.
    [
      "module.exports = async function (req) {\n  return { raw: { greeting: 'Hi' + } };\n};\n",
      'line 2, column 36',
    ],
    ['const a = 1;\nconst b = 2;\nconst c = @;\nmodule.exports = async () => ({});', 'line 3, column 11'],
    // Found only after the code ended (an unclosed brace): the end of its last line, not a line past it.
    ['module.exports = async function (req) {\n  return {\n};', 'line 3, column 3'],
    // A `//` comment that swallows the rest of a one-line formula.
    ['module.exports = async function (req) { // done return {}; };', 'line 1, column 62'],
  ])('%j → %s, on save and at invocation', async (code, at) => {
    expect((await sandbox.checkModuleCode(code, 'tenant-a'))?.detail).toMatch(
      new RegExp(`^Invalid Reactor Formula: ${at}: SyntaxError: `),
    );
    const outcome = problem(await run(code));
    expect(outcome).toMatchObject({ status: 422, code: 'UNPROCESSABLE' });
    expect(outcome.detail).toMatch(new RegExp(`^Invalid Reactor Formula: ${at}: SyntaxError: `));
  });
});

describe('runModule', () => {
  it('passes args and configuration, returns the output', async () => {
    const outcome = await run(
      'module.exports = async (req) => ({ raw: { a: req.args.a, region: req.configuration.region, svc: req.svc } });',
      { a: [1, 'x'] },
    );
    expect(outcome).toEqual({ kind: 'ok', output: { raw: { a: [1, 'x'], region: 'eu', svc: null } } });
  });

  it('bridges svc calls as promises, and their rejections as catchable errors', async () => {
    const calls: unknown[] = [];
    const outcome = await run(
      `module.exports = async (req) => {
        const token = await req.svc.tokens.create({ type: 'token', data: 'x' });
        let denied;
        try { await req.svc.tokens.delete(token.id); } catch (e) { denied = [e.name, e.status, e.code]; }
        let failed;
        try { await req.svc.tokens.retrieve(token.id); } catch (e) { failed = [e.status, e.code, e.message]; }
        return { raw: { token, denied, failed } };
      };`,
      {},
      async (method, args) => {
        calls.push([method, args]);
        const { VaultError } = await import('../errors/catalogue.ts');
        if (method === 'tokens.delete') throw new VaultError('FORBIDDEN', 'no');
        // A host failure's detail names internals: the code sees the title only.
        if (method === 'tokens.retrieve')
          throw new VaultError('INTEGRITY_FAILED', 'The tokens row row_id=7 failed its integrity check.');
        return { id: 't1' };
      },
    );
    expect(outcome).toEqual({
      kind: 'ok',
      output: {
        raw: {
          token: { id: 't1' },
          denied: ['SvcError', 403, 'FORBIDDEN'],
          failed: [500, 'INTEGRITY_FAILED', 'A stored record failed its integrity check.'],
        },
      },
    });
    expect(calls).toEqual([
      ['tokens.create', [{ type: 'token', data: 'x' }]],
      ['tokens.delete', ['t1']],
      ['tokens.retrieve', ['t1']],
    ]);
  });

  it('a context made ahead of its run holds nothing of earlier runs, on any worker', async () => {
    await run(`globalThis.leak = 'x'; Object.prototype.polluted = 1; JSON.parse = () => 'forged';
      module.exports = async () => { globalThis.seen = true; return {}; };`);
    const probe = `module.exports = async (req) => ({ raw: {
      leak: typeof leak, seen: typeof seen, polluted: ({}).polluted === undefined, args: req.args } });`;
    const outcomes = await Promise.all([1, 2, 3, 4].map((n) => run(probe, { n })));
    outcomes.forEach((outcome, i) =>
      expect(outcome).toEqual({
        kind: 'ok',
        output: { raw: { leak: 'undefined', seen: 'undefined', polluted: true, args: { n: i + 1 } } },
      }),
    );
  });

  it('modules compiled on first use serve only their own run, whatever the code did to the globals first', async () => {
    const sabotaged = await run(`globalThis.Error = function () {}; Object.freeze = (o) => o;
      const E = require('@svc/reactor-errors'); E.BadRequestError.prototype.extra = 1;
      module.exports = async () => { throw new E.BadRequestError('x'); };`);
    expect(sabotaged.kind).toBe('problem');
    expect(problem(await run(throwing("new E.BadRequestError('nope')")))).toEqual({
      code: 'VALIDATION_FAILED',
      status: 400,
      detail: 'Bad Request',
      errors: { error: ['nope'] },
    });
    const fresh = await run(
      `module.exports = async () => ({ raw: require('@svc/reactor-errors').BadRequestError.prototype.extra === undefined });`,
    );
    expect(fresh).toEqual({ kind: 'ok', output: { raw: true } });
  });

  it('offers the allow-listed modules and refuses others with a catchable error', async () => {
    const outcome = await run(`module.exports = async () => {
      const crypto = require('crypto');
      let refused;
      try { require('fs'); } catch (e) { refused = e.message; }
      return { raw: {
        hmac: crypto.createHmac('sha256', 'key').update('data').digest('hex'),
        sha: crypto.createHash('sha256').update('abc').digest('base64'),
        bytes: crypto.randomBytes(8).toString('hex').length,
        uuid: require('uuid').validate(require('uuid').v4()),
        uuidCases: ['0E3B1C2A-5D6F-4A7B-8C9D-0E1F2A3B4C5D', '0e3b1c2a-5d6f-4a7b-bc9d-0e1f2a3b4c5d',
          '0e3b1c2a-5d6f-9a7b-8c9d-0e1f2a3b4c5d', '0e3b1c2a-5d6f-4a7b-cc9d-0e1f2a3b4c5d', 'g'.repeat(36)]
          .map(require('uuid').validate),
        refused,
      } };
    };`);
    expect(outcome).toEqual({
      kind: 'ok',
      output: {
        raw: {
          hmac: '5031fe3d989c6d1537a013fa6e739da23463fdaec3b70137d828e36ace221bd0',
          sha: 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=',
          bytes: 16,
          uuid: true,
          uuidCases: [true, true, false, false, false],
          refused: expect.stringContaining("Cannot find module 'fs'"),
        },
      },
    });
  });

  it('fetch goes through the injected network function with the WHATWG shape', async () => {
    const outcome = await run(`module.exports = async () => {
      const r = await fetch('https://api.example.com/x', { method: 'post', headers: { 'X-K': 'v' }, body: 'hi' });
      return { raw: { ok: r.ok, status: r.status, h: r.headers.get('X-A'), json: await r.json() } };
    };`);
    expect(outcome).toEqual({
      kind: 'ok',
      output: { raw: { ok: true, status: 201, h: '1', json: { ok: true } } },
    });
    expect(fetched.at(-1)).toMatchObject({
      url: 'https://api.example.com/x',
      method: 'POST',
      headers: [['X-K', 'v']],
      body: 'hi',
    });
  });

  it('refuses fetch by default', async () => {
    const closedNet = createSandbox({ workers: 1, limits: { timeoutMs: 1500 } });
    try {
      const outcome = await closedNet.runModule({
        tenant: 'tenant-a',
        code: `module.exports = async () => { try { await fetch('https://x.example'); } catch (e) { return { raw: e.message }; } };`,
        args: {},
        configuration: {},
        svc: null,
      });
      expect(outcome).toEqual({ kind: 'ok', output: { raw: expect.stringContaining('not configured') } });
    } finally {
      await closedNet.close();
    }
  });
});

describe('error classes → problems', () => {
  const table: Array<[string, number, string]> = [
    ['AuthenticationError', 401, 'UNAUTHENTICATED'],
    ['AuthorizationError', 403, 'FORBIDDEN'],
    ['BadRequestError', 400, 'VALIDATION_FAILED'],
    ['InvalidPaymentMethodError', 402, 'PAYMENT_REQUIRED'],
    ['InvalidReactorConfigurationError', 400, 'VALIDATION_FAILED'],
    ['InvalidReactorFormulaError', 422, 'UNPROCESSABLE'],
    ['RateLimitError', 429, 'RATE_LIMITED'],
    ['ReactorRuntimeError', 500, 'REACTOR_RUNTIME'],
    ['ServiceUnavailableError', 503, 'SERVICE_UNAVAILABLE'],
  ];
  it('covers every class', () => {
    expect(table.map(([name]) => name).sort()).toEqual(Object.keys(REACTOR_ERROR_CLASSES).sort());
  });
  it.each(table)('%s → %i %s with its fixed detail', async (name, status, code) => {
    const p = problem(await run(throwing(`new E.${name}('why')`)));
    expect(p).toEqual({
      code,
      status,
      detail: REACTOR_ERROR_CLASSES[name as keyof typeof REACTOR_ERROR_CLASSES].detail,
      // A 5xx is logged, never shown: what the code wrote (maybe token data) stays out of it.
      errors: { error: [status >= 500 ? `the reactor code threw ${name}` : 'why'] },
    });
  });

  it.each([
    ['a string', `'bad card'`, { error: ['bad card'] }],
    ['an empty string', `''`, { error: [ERROR_FALLBACK] }],
    ['an array', `['a', { b: 1 }, null]`, { error: ['a', '{"b":1}', ERROR_FALLBACK] }],
    ['an Error', `new TypeError('inner')`, { error: ['inner'] }],
    [
      'an object',
      `{ card: ['x', 'y'], nested: { a: 1 }, n: 5, empty: 0 }`,
      { card: ['x', 'y'], nested: ['{"a":1}'], n: ['5'], empty: [ERROR_FALLBACK] },
    ],
    [
      'keys named like object members',
      `JSON.parse('{"__proto__": ["p"], "constructor": "c", "toString": ["t"]}')`,
      JSON.parse('{"__proto__": ["p"], "constructor": ["c"], "toString": ["t"]}') as Record<string, string[]>,
    ],
    ['nothing', ``, { error: [ERROR_FALLBACK] }],
    [
      'a circular object',
      `(() => { const o = { a: 1 }; o.self = o; return { o }; })()`,
      { o: ['{"a":1,"self":"[Circular]"}'] },
    ],
  ])('normalises %s', async (_what, argument, errors) => {
    expect(problem(await run(throwing(`new E.BadRequestError(${argument})`))).errors).toEqual(errors);
  });

  it('CustomHttpResponseError answers its own status, headers and body', async () => {
    const outcome = await run(
      throwing(
        `new E.CustomHttpResponseError({ status: 418, headers: { 'X-Teapot': 'yes', 'Bad Name': 'x', 'Content-Length': '1', constructor: 'c' }, body: { short: 'stout' } })`,
      ),
    );
    expect(outcome).toEqual({
      kind: 'custom-response',
      status: 418,
      headers: { 'X-Teapot': 'yes', constructor: 'c' },
      body: { short: 'stout' },
    });
  });

  it('CustomHttpResponseError with a bad status throws a TypeError → 500', async () => {
    expect(problem(await run(throwing(`new E.CustomHttpResponseError({ status: 99 })`))).errors).toEqual({
      error: ['the reactor code threw TypeError'],
    });
  });

  it('any other throw is a 500 naming only the class, never the message', async () => {
    const p = problem(await run(throwing(`new Error('4242424242424242')`)));
    expect(p).toEqual({
      code: 'REACTOR_RUNTIME',
      status: 500,
      detail: 'Reactor Runtime Error',
      errors: { error: ['the reactor code threw Error'] },
    });
    expect(problem(await run(throwing(`'a string'`))).errors).toEqual({
      error: ['the reactor code threw a value'],
    });
  });

  it('a timeout is 408 REACTOR_TIMEOUT, and the event loop keeps turning meanwhile', async () => {
    // A loop on this thread would allow no turn until the timeout; in a worker the loop turns freely.
    // A shorter deadline than the sandbox's: the loop burns a core until it.
    const { result: outcome, turns } = await countTurnsWhile(() =>
      sandbox.runModule({
        tenant: 'tenant-a',
        code: 'module.exports = async () => { for (;;) {} };',
        args: {},
        configuration: {},
        svc: null,
        limits: { timeoutMs: 500 },
      }),
    );
    const p = problem(outcome);
    expect(p.code).toBe('REACTOR_TIMEOUT');
    expect(p.status).toBe(408);
    expect(turns).toBeGreaterThan(20);
  });
});

describe('sharing the workers between tenants', () => {
  it("another tenant's trivial run answers while one tenant's endless loops hold their workers; beyond its cap the looping tenant is refused with 429", async () => {
    // Three workers: a tenant may hold two, the third stays for everyone else. The loops' deadline
    // is far off: they still run when the pool is closed (server/routes/reactors-fairness.test.ts
    // lets them reach it).
    const pool = createSandbox({
      workers: 3,
      limits: { timeoutMs: 60_000, memoryBytes: 16 * 1024 * 1024 },
      pool: { pendingPerTenant: 4 },
    });
    const trivial = (tenant: string) =>
      pool.runModule({
        tenant,
        code: 'module.exports = async () => ({ raw: "ok" });',
        args: {},
        configuration: {},
        svc: null,
      });
    try {
      // Every worker started (one run each of three tenants), so no run below waits for a start.
      await Promise.all(['warm-1', 'warm-2', 'warm-3'].map(trivial));

      // Each loop reports through a host call once it runs on a worker, then never returns.
      let running = 0;
      let twoRunning: () => void = () => undefined;
      const bothStarted = new Promise<void>((resolve) => (twoRunning = resolve));
      const settled: string[] = [];
      const loops = [1, 2, 3, 4].map((n) =>
        pool
          .runModule({
            tenant: 'tenant-a',
            code: "module.exports = async (req) => { await req.svc.tokens.retrieve('x'); for (;;) {} };",
            args: {},
            configuration: {},
            svc: async () => {
              running += 1;
              if (running === 2) twoRunning();
              return {};
            },
          })
          .then((outcome) => {
            settled.push(`a${n}`);
            return outcome;
          }),
      );
      await bothStarted;

      // A fifth run of the same tenant is over its cap of four running or waiting.
      const refused = await pool
        .runModule({
          tenant: 'tenant-a',
          code: 'module.exports = async () => ({});',
          args: {},
          configuration: {},
          svc: null,
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      // The soonest of the tenant's running runs reaches its deadline in about a minute.
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(30);
      expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60);

      // Tenant B gets the worker tenant A may not take, while all four of A's loops are unfinished,
      // and does again: the third worker stays free of A's two waiting runs.
      expect(await trivial('tenant-b')).toEqual({ kind: 'ok', output: { raw: 'ok' } });
      expect(await trivial('tenant-c')).toEqual({ kind: 'ok', output: { raw: 'ok' } });
      expect(settled).toEqual([]);
      expect(running).toBe(2);
      // Closing the pool ends them all, the waiting ones included.
      await pool.close();
      expect((await Promise.all(loops)).map((outcome) => outcome.kind)).toEqual([
        'problem',
        'problem',
        'problem',
        'problem',
      ]);
    } finally {
      await pool.close();
    }
  });
});

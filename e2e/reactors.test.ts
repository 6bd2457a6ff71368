import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, stop, svc, svcServe } from './support.ts';

/**
 * Reactors as a user walks them over real HTTP: a formula from a file, a reactor with an
 * application, an invocation with token expressions that returns `raw` and new `tokens`, a code
 * error mapped to its problem, and the audit log.
 */
describe('reactors, end to end', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-e2e-reactors-'));
    env = { SVC_HOME: home, SVC_LOG_LEVEL: 'warn' };
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('creates a formula from a file, invokes a reactor with token expressions, audits it', async () => {
    expect((await svc(['init'], env)).code).toBe(0);
    const tenant = await svc(
      ['tenant', 'create', '--name', 'Acme', '--owner-email', 'o@acme.test', '--json'],
      env,
    );
    expect(tenant.code, tenant.stderr).toBe(0);
    const management = (JSON.parse(tenant.stdout) as { application: { key: string } }).application.key;
    const codeFile = join(home, 'charge.js');
    await writeFile(
      codeFile,
      [
        "const { BadRequestError } = require('@svc/reactor-errors');",
        'module.exports = async function (req) {',
        "  if (req.args.amount <= 0) throw new BadRequestError({ amount: 'must be positive' });",
        '  const receipt = await req.svc.tokens.create({ type: "token", data: "receipt " + req.args.card.number.slice(-4) });',
        '  return {',
        '    raw: { last4: req.args.card.number.slice(-4), amount: req.args.amount, holder: req.args.holder, receipt: receipt.id },',
        '    tokenize: { card: { type: "card", data: req.args.card } },',
        '  };',
        '};',
      ].join('\n'),
    );

    const server = await svcServe(['serve', '--port', '0'], env);
    try {
      const url = server.url;
      const app = async (name: string, permissions: string[]) => {
        const r = await api(url, 'POST', '/applications', {
          key: management,
          body: { name, type: 'private', permissions },
        });
        expect(r.status).toBe(201);
        return r.body as { id: string; key: string };
      };
      const caller = await app('caller', ['token:create', 'token:use']);
      const bot = await app('bot', ['token:create']);

      const tokenized = await api(url, 'POST', '/tokenize', {
        key: caller.key,
        body: {
          card: {
            type: 'card',
            data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 },
          },
          name: { type: 'token', data: 'Ada Lovelace' },
        },
      });
      expect(tokenized.status).toBe(200);
      const ids = tokenized.body as { card: { id: string }; name: { id: string } };

      const formula = await api(url, 'POST', '/reactor-formulas', {
        key: management,
        body: {
          name: 'Charge',
          type: 'private',
          code: await readFile(codeFile, 'utf8'),
          configuration: [],
          request_parameters: [
            { name: 'card.number', type: 'string' },
            { name: 'amount', type: 'number' },
          ],
        },
      });
      expect(formula.status, JSON.stringify(formula.body)).toBe(201);
      const reactor = await api(url, 'POST', '/reactors', {
        key: management,
        body: { name: 'Charge it', formula: formula.body, configuration: {}, application: { id: bot.id } },
      });
      expect(reactor.status, JSON.stringify(reactor.body)).toBe(201);
      const reactorId = (reactor.body as { id: string }).id;

      const reacted = await api(url, 'POST', `/reactors/${reactorId}/react`, {
        key: caller.key,
        body: {
          args: { card: `{{ ${ids.card.id} }}`, amount: '12.50', holder: `{{ ${ids.name.id} | upcase }}` },
        },
      });
      expect(reacted.status, JSON.stringify(reacted.body)).toBe(200);
      const body = reacted.body as {
        raw: Record<string, unknown>;
        tokens: { card: { id: string; data: unknown } };
      };
      expect(body.raw).toMatchObject({ last4: '4242', amount: 12.5, holder: 'ADA LOVELACE' });
      expect(body.tokens.card.id).toEqual(expect.any(String));
      expect(JSON.stringify(body.tokens)).not.toContain('4242424242424242');

      const refused = await api(url, 'POST', `/reactors/${reactorId}/react`, {
        key: caller.key,
        body: { args: { card: `{{ ${ids.card.id} }}`, amount: 0 } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ detail: 'Bad Request', errors: { amount: ['must be positive'] } });

      const logs = await api(url, 'GET', `/logs?entity_type=reactor&entity_id=${reactorId}`, {
        key: management,
      });
      expect(logs.status).toBe(200);
      const entries = (logs.body as { data: Array<{ operation: string; message: string }> }).data;
      expect(entries.map((e) => e.operation).sort()).toEqual(['create', 'invoke', 'invoke']);
      expect(JSON.stringify(logs.body)).not.toContain('4242424242424242');
      const used = await api(url, 'GET', `/logs?entity_id=${encodeURIComponent(ids.card.id)}`, {
        key: management,
      });
      expect(
        (used.body as { data: Array<{ operation: string }> }).data.some((e) => e.operation === 'use'),
      ).toBe(true);
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
  }, 90_000);
});

/**
 * JSON bodies are checked from their bytes before parsing: invalid UTF-8, numbers JSON.parse would
 * alter, lone surrogates, over-deep nesting and too many object members are 400s and nothing is
 * stored — on every route that takes token data (create, tokenize, update).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_DATA_DEPTH } from '../../core/validation/json-value.ts';
import { MAX_JSON_BODY_DEPTH, MAX_JSON_BODY_MEMBERS } from '../../core/validation/json-text.ts';
import { createTenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { MERGE_PATCH, privateKey, rule, TOKEN_PERMISSIONS, tokenUrl } from '../test-support/tokens.ts';

let server: TestServer;
let key: string;

beforeEach(async () => {
  server = await createTestServer();
  const tenant = await createTenantFixture(server.services, 'Tenant');
  const app = await privateKey(server.services, tenant.tenant.id, {
    permissions: TOKEN_PERMISSIONS,
    rules: [rule('/', ['token:read'], 'reveal')],
  });
  key = app.key;
});

afterEach(async () => {
  await server.dispose();
});

function send(method: 'POST' | 'PATCH', url: string, payload: string | Buffer) {
  return server.app.inject({
    method,
    url,
    headers: {
      'svc-api-key': key,
      'content-type': method === 'PATCH' ? MERGE_PATCH : 'application/json',
    },
    payload,
  });
}

async function tokenCount(): Promise<number> {
  const row = await server.temp.vault.db
    .selectFrom('tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function nestedText(levels: number): string {
  return '{"a":'.repeat(levels) + '"leaf"' + '}'.repeat(levels);
}

interface ProblemJson {
  code: string;
  detail: string;
  errors?: Record<string, string[]>;
}

describe('raw JSON body checks', () => {
  const bodies: Array<[string, (data: string) => string]> = [
    ['POST /tokens', (data) => `{"type":"token","data":${data}}`],
    ['POST /tokenize', (data) => `{"t":{"type":"token","data":${data}}}`],
  ];

  it.each(bodies)('%s refuses a number that would lose digits, storing nothing', async (route, body) => {
    const url = route.split(' ')[1]!;
    for (const n of ['123456789012345678901234567890', '9007199254740993', '1e400', '-1e400', '1e-400']) {
      const response = await send('POST', url, body(`{"n":${n}}`));
      expect(response.statusCode).toBe(400);
      const problem = response.json<ProblemJson>();
      expect(problem.code).toBe('VALIDATION_FAILED');
      expect(problem.errors?.['body']?.[0]).toMatch(/^The number at offset \d+ /);
    }
    expect(await tokenCount()).toBe(0);
    // Exactly representable numbers are fine, and come back as sent.
    const ok = await send('POST', url, body('{"n":0.1,"m":1.5e-7,"big":9007199254740991}'));
    expect(ok.statusCode).toBeLessThan(300);
  });

  it.each(bodies)('%s refuses invalid UTF-8 instead of storing U+FFFD', async (route, body) => {
    const url = route.split(' ')[1]!;
    // "ab__" with the two underscores replaced by bytes that are not UTF-8.
    const payload = Buffer.from(body('"ab__"'), 'utf8');
    payload.fill(0xff, payload.indexOf('__'), payload.indexOf('__') + 2);
    const response = await send('POST', url, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json<ProblemJson>()).toMatchObject({
      code: 'MALFORMED_JSON',
      detail: 'The request body is not valid UTF-8.',
    });
    expect(await tokenCount()).toBe(0);
  });

  it.each(bodies)('%s refuses a member named __proto__ and says so, storing nothing', async (route, body) => {
    const url = route.split(' ')[1]!;
    const response = await send('POST', url, body('{"__proto__":{"a":1}}'));
    expect(response.statusCode).toBe(400);
    expect(response.json<ProblemJson>()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(response.json<ProblemJson>().errors?.['body']?.[0]).toMatch(
      /^The member named __proto__ at offset \d+ is not accepted\.$/,
    );
    expect(await tokenCount()).toBe(0);
  });

  it.each(bodies)('%s refuses a lone surrogate escape', async (route, body) => {
    const url = route.split(' ')[1]!;
    const response = await send('POST', url, body('"\\ud800"'));
    expect(response.statusCode).toBe(400);
    expect(response.json<ProblemJson>().errors?.['body']?.[0]).toMatch(/lone surrogate/);
    expect(await tokenCount()).toBe(0);
  });

  it.each(bodies)('%s refuses deep data with 400, never a stack overflow', async (route, body) => {
    const url = route.split(' ')[1]!;
    // Far too deep for the body: refused before parsing.
    const huge = await send('POST', url, body(nestedText(100_000)));
    expect(huge.statusCode).toBe(400);
    expect(huge.json<ProblemJson>().errors?.['body']?.[0]).toBe(
      `The body is nested deeper than ${MAX_JSON_BODY_DEPTH} levels.`,
    );
    // Within the body limit but deeper than data may be: refused by the token rules.
    const deep = await send('POST', url, body(nestedText(MAX_DATA_DEPTH + 1)));
    expect(deep.statusCode).toBe(400);
    expect(Object.values(deep.json<ProblemJson>().errors ?? {}).flat()).toEqual([
      `must not be nested deeper than ${MAX_DATA_DEPTH} levels`,
    ]);
    expect(await tokenCount()).toBe(0);
  });

  it.each(bodies)(
    '%s refuses more object members than a body may hold, before parsing it',
    async (route, body) => {
      const url = route.split(' ')[1]!;
      const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
      const refused = await send('POST', url, body(members(MAX_JSON_BODY_MEMBERS)));
      expect(refused.statusCode).toBe(400);
      expect(refused.json<ProblemJson>().errors?.['body']).toEqual([
        `The body's objects may hold at most ${MAX_JSON_BODY_MEMBERS} members in all.`,
      ]);
      expect(await tokenCount()).toBe(0);
      // A long list is not object members: a token's data may fill the body with one.
      const list = await send('POST', url, body(`[${Array.from({ length: 100_000 }, () => '0').join(',')}]`));
      expect(list.statusCode).toBeLessThan(300);
    },
  );

  it('checks merge patches the same way, leaving the token unchanged', async () => {
    const created = await send('POST', '/tokens', '{"type":"token","data":{"n":1}}');
    const id = created.json<{ id: string }>().id;
    for (const payload of [
      '{"data":{"n":123456789012345678901234567890}}',
      '{"data":"\\udc00"}',
      `{"data":${nestedText(MAX_JSON_BODY_DEPTH + 1)}}`,
      `{"data":${nestedText(MAX_DATA_DEPTH + 1)}}`,
      Buffer.from([0x7b, 0x22, 0x64, 0x61, 0x74, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]),
    ]) {
      const response = await send('PATCH', tokenUrl(id), payload);
      expect(response.statusCode).toBe(400);
    }
    const read = await server.app.inject({
      method: 'GET',
      url: tokenUrl(id),
      headers: { 'svc-api-key': key },
    });
    expect(read.json<{ data: unknown }>().data).toEqual({ n: 1 });
  });
});

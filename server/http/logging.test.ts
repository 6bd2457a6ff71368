import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { pino } from 'pino';
import { buildServer } from '../app.ts';
import { pathOf } from './logging.ts';
import { createTempVault, type TempVault } from '../../core/test-support/temp-vault.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import type { VaultServer } from '../types.ts';

const SECRETS = {
  apiKey: 'key_SECRET_API_KEY_1234',
  authorization: 'Bearer SECRET_BEARER_5678',
  cookie: 'session=SECRET_COOKIE_9012',
  proxyKey: 'SECRET_PROXY_KEY_3456',
  query: 'SECRET_QUERY_VALUE_7890',
  body: '4242424242424242',
};

function secretRoutes(app: VaultServer): void {
  const schema = { body: Type.Object({ data: Type.String() }) };
  app.post('/test/secret-echo', { config: { access: 'public' }, schema }, async (request) => {
    // A careless handler: the logger must still keep credentials out.
    request.log.info({ headers: request.headers }, 'handler saw headers');
    request.log.info({ req: request }, 'handler logged the request');
    return { id: 'tok_1' };
  });
}

function secretRequest(app: VaultServer) {
  return app.inject({
    method: 'POST',
    url: `/test/secret-echo?svc-proxy-key=${SECRETS.proxyKey}&q=${SECRETS.query}`,
    headers: {
      'svc-api-key': SECRETS.apiKey,
      authorization: SECRETS.authorization,
      cookie: SECRETS.cookie,
      'svc-proxy-key': SECRETS.proxyKey,
      'svc-trace-id': 'trace-log-1',
    },
    payload: { data: SECRETS.body },
  });
}

describe('request logging', () => {
  let server: TestServer;

  beforeEach(async () => {
    server = await createTestServer({ routes: secretRoutes });
  });

  afterEach(async () => {
    await server.dispose();
  });

  it('writes one structured line per request without query values', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/healthz?token=abc',
      headers: { 'svc-trace-id': 't-1' },
    });
    expect(response.statusCode).toBe(200);
    const lines = server.logs.lines().filter((line) => line.traceId === 't-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      path: '/healthz',
      route: '/healthz',
      statusCode: 200,
      responseTime: expect.any(Number),
    });
    expect(server.logs.text()).not.toContain('token=abc');
  });

  it('never writes secret headers, query values or bodies', async () => {
    const response = await secretRequest(server.app);
    expect(response.statusCode).toBe(200);
    const text = server.logs.text();
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    // The careless handler's lines are there, with the credentials censored.
    const headersLine = server.logs.lines().find((line) => line.msg === 'handler saw headers');
    expect(headersLine).toMatchObject({
      traceId: 'trace-log-1',
      headers: { 'svc-api-key': '[redacted]', authorization: '[redacted]', cookie: '[redacted]' },
    });
    const reqLine = server.logs.lines().find((line) => line.msg === 'handler logged the request');
    expect(reqLine).toMatchObject({ req: { method: 'POST', path: '/test/secret-echo' } });
  });

  it('keeps secrets out of the log of a failing request too', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: `/test/secret-echo?q=${SECRETS.query}`,
      headers: { 'svc-api-key': SECRETS.apiKey, 'content-type': 'application/json' },
      payload: `{"data": "${SECRETS.body}"`,
    });
    expect(response.statusCode).toBe(400);
    const text = server.logs.text();
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });
});

describe('a caller-supplied pino logger', () => {
  let temp: TempVault;

  beforeEach(async () => {
    temp = await createTempVault();
  });

  afterEach(async () => {
    await temp.dispose();
  });

  it('is used through a child that still redacts', async () => {
    const chunks: string[] = [];
    const logger = pino({ level: 'info' }, { write: (chunk: string) => void chunks.push(chunk) });
    const app = await buildServer(temp.vault, { logger });
    secretRoutes(app);
    try {
      await secretRequest(app);
    } finally {
      await app.close();
    }
    const text = chunks.join('');
    expect(text).toContain('request completed');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });
});

describe('pathOf', () => {
  it('drops the query string', () => {
    expect(pathOf('/a/b?x=1&y=2')).toBe('/a/b');
    expect(pathOf('/a')).toBe('/a');
    expect(pathOf(undefined)).toBe('');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { VaultError } from '../core/errors/catalogue.ts';
import { PROBLEM_CONTENT_TYPE } from './http/problem.ts';
import { createTestServer, type TestServer } from './test-support/test-server.ts';
import type { VaultServer } from './types.ts';

function probeRoutes(app: VaultServer): void {
  app.post(
    '/probe',
    {
      config: { access: 'public' },
      schema: {
        body: Type.Object({
          name: Type.String({ minLength: 1 }),
          size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          card: Type.Optional(Type.Object({ number: Type.String({ pattern: '^[0-9]+$' }) })),
          tags: Type.Optional(Type.Array(Type.String({ maxLength: 3 }))),
        }),
        querystring: Type.Object({ size: Type.Optional(Type.Integer({ maximum: 100 })) }),
      },
    },
    async (request) => ({ got: request.body.name }),
  );
  app.delete('/probe', { config: { access: 'public' } }, async (_request, reply) => reply.code(204).send());
  app.get('/fail/:kind', { config: { access: 'public' } }, async (request) => {
    const { kind } = request.params as { kind: string };
    if (kind === 'conflict') throw new VaultError('CONFLICT', 'A token with this id exists.');
    if (kind === 'vault-failed')
      throw new VaultError('VAULT_FAILED', 'fsync failed on /secret/path/vault.journal');
    throw new Error('internal detail: card 4242424242424242');
  });
}

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer({ bodyLimit: 256, routes: probeRoutes });
});

afterEach(async () => {
  await server.dispose();
});

function expectProblem(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json() as Record<string, unknown>;
  expect(body.status).toBe(response.statusCode);
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

describe('problem+json errors', () => {
  it('answers an unknown route with a 404 problem', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(response.statusCode).toBe(404);
    expect(expectProblem(response)).toMatchObject({
      type: 'urn:svc-vault:problem:not-found',
      code: 'NOT_FOUND',
      title: 'Not found.',
    });
  });

  it('answers an unknown method on a known path with a 404 problem', async () => {
    const response = await server.app.inject({ method: 'PUT', url: '/probe' });
    expect(response.statusCode).toBe(404);
    expect(expectProblem(response).code).toBe('NOT_FOUND');
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/probe',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(expectProblem(response)).toMatchObject({
      code: 'MALFORMED_JSON',
      type: 'urn:svc-vault:problem:malformed-json',
    });
  });

  it('refuses prototype poisoning as a validation problem that names the member', async () => {
    for (const [payload, member] of [
      ['{"name":"a","__proto__":{"admin":true}}', '__proto__ at offset 12'],
      ['{"name":"a","constructor":{"prototype":{"admin":true}}}', 'constructor.prototype at offset 27'],
    ] as const) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/probe',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(400);
      const problem = expectProblem(response);
      expect(problem.code).toBe('VALIDATION_FAILED');
      expect((problem.errors as Record<string, string[]>)['body']).toEqual([
        `The member named ${member} is not accepted.`,
      ]);
    }
  });

  it('accepts an empty body sent with a JSON content type (clients do that on DELETE)', async () => {
    const response = await server.app.inject({
      method: 'DELETE',
      url: '/probe',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(204);
  });

  it('answers an empty body where one is required with a validation problem', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/probe',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(400);
    expect(expectProblem(response)).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: { body: expect.any(Array) },
    });
  });

  it('answers a body over the limit with 413', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/probe',
      payload: { name: 'x'.repeat(1000) },
    });
    expect(response.statusCode).toBe(413);
    expect(expectProblem(response).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers an unsupported content type with 415', async () => {
    for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/probe',
        headers: { 'content-type': contentType },
        payload: 'name=x',
      });
      expect(response.statusCode).toBe(415);
      expect(expectProblem(response).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('answers a schema violation with 400 and an errors map keyed by field', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/probe',
      payload: { name: 'a', size: 101 },
    });
    expect(response.statusCode).toBe(400);
    expect(expectProblem(response)).toEqual({
      type: 'urn:svc-vault:problem:validation-failed',
      title: 'One or more validation errors occurred.',
      status: 400,
      detail: 'One or more validation errors occurred.',
      code: 'VALIDATION_FAILED',
      errors: { size: ['must be <= 100'] },
    });
  });

  it('names missing, nested and array fields the way the client sent them', async () => {
    const missing = await server.app.inject({ method: 'POST', url: '/probe', payload: { size: 1 } });
    expect(missing.json()).toMatchObject({ errors: { name: ['is required'] } });

    const nested = await server.app.inject({
      method: 'POST',
      url: '/probe',
      payload: { name: 'a', card: { number: 'x' } },
    });
    expect(nested.json()).toMatchObject({ errors: { 'card.number': [expect.stringMatching(/pattern/)] } });

    const nestedMissing = await server.app.inject({
      method: 'POST',
      url: '/probe',
      payload: { name: 'a', card: {} },
    });
    expect(nestedMissing.json()).toMatchObject({ errors: { 'card.number': ['is required'] } });

    const item = await server.app.inject({
      method: 'POST',
      url: '/probe',
      payload: { name: 'a', tags: ['ok', 'long'] },
    });
    expect(item.json()).toMatchObject({ errors: { 'tags[1]': ['must NOT have more than 3 characters'] } });
  });

  it('validates the query string the same way', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/probe?size=500',
      payload: { name: 'a' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: { size: ['must be <= 100'] },
    });
  });

  it('answers a VaultError with its catalogue status and detail', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/fail/conflict' });
    expect(response.statusCode).toBe(409);
    expect(expectProblem(response)).toEqual({
      type: 'urn:svc-vault:problem:conflict',
      title: 'Conflict.',
      status: 409,
      detail: 'A token with this id exists.',
      code: 'CONFLICT',
    });
  });

  it('keeps the detail of a server-side VaultError out of the response', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/fail/vault-failed' });
    expect(response.statusCode).toBe(503);
    expect(expectProblem(response).code).toBe('VAULT_FAILED');
    expect(response.body).not.toContain('/secret/path');
    expect(server.logs.text()).toContain('/secret/path');
  });

  it('answers an unexpected error with a generic 500 and logs the error', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/fail/boom',
      headers: { 'svc-trace-id': 'trace-500' },
    });
    expect(response.statusCode).toBe(500);
    expect(expectProblem(response)).toMatchObject({ code: 'INTERNAL', title: 'Internal server error.' });
    expect(response.body).not.toContain('4242');
    const logged = server.logs.lines().find((line) => line.msg === 'request failed');
    expect(logged).toMatchObject({
      level: 50,
      traceId: 'trace-500',
      err: { message: expect.stringContaining('internal detail') },
    });
  });

  it('answers a URL Fastify cannot decode with a 400 problem', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/fail/%zz' });
    expect(response.statusCode).toBe(400);
    expect(expectProblem(response).code).toBe('VALIDATION_FAILED');
    expect(response.headers['svc-trace-id']).toEqual(expect.any(String));
  });

  it('declares problem+json as the content type constant', () => {
    expect(PROBLEM_CONTENT_TYPE).toBe('application/problem+json');
  });
});

describe('trailing slashes', () => {
  it('routes POST /probe/ like POST /probe', async () => {
    const plain = await server.app.inject({ method: 'POST', url: '/probe', payload: { name: 'a' } });
    const slashed = await server.app.inject({ method: 'POST', url: '/probe/', payload: { name: 'a' } });
    expect(plain.statusCode).toBe(200);
    expect(slashed.statusCode).toBe(200);
    expect(slashed.json()).toEqual(plain.json());
  });

  it('routes GET /healthz/ like GET /healthz', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/healthz/' });
    expect(response.statusCode).toBe(200);
  });
});

import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer } from '../test-support/test-server.ts';
import { compileDeferredSchemas, requestValidation } from './validation.ts';

type App = ReturnType<typeof Fastify>;
const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A route schema as the route modules declare it: one module-level object shared by every instance. */
const ITEM_ROUTE = {
  body: {
    type: 'object',
    properties: { count: { type: 'integer' }, label: { type: 'string', default: 'none' } },
    required: ['count'],
    additionalProperties: false,
  },
  querystring: {
    type: 'object',
    properties: { size: { type: 'integer' }, id: { type: 'array', items: { type: 'string' } } },
  },
  response: {
    200: {
      type: 'object',
      properties: { count: { type: 'integer' }, label: { type: 'string' }, size: { type: 'integer' } },
    },
  },
} as const;

function serverWith(schema: object): App {
  const app = Fastify({ schemaController: requestValidation() });
  app.post('/items', { schema }, async (request) => {
    const body = request.body as { count: number; label: string };
    const query = request.query as { size?: number; id?: string[] };
    // `secret` is not in the response schema: the serializer must leave it out.
    return { ...body, size: query.size, ids: query.id, secret: 'never serialized' };
  });
  apps.push(app);
  return app;
}

describe('request validation and response serialization', () => {
  it('never coerces a body, coerces query text, fills defaults and refuses unknown fields', async () => {
    const app = serverWith(ITEM_ROUTE);
    const ok = await app.inject({ method: 'POST', url: '/items?size=5&id=a', payload: { count: 1 } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ count: 1, label: 'none', size: 5 });

    const text = await app.inject({ method: 'POST', url: '/items', payload: { count: '1' } });
    expect(text.statusCode).toBe(400);
    const unknown = await app.inject({ method: 'POST', url: '/items', payload: { count: 1, extra: true } });
    expect(unknown.statusCode).toBe(400);
  });

  it('checks and serializes the same way in every server built from the same route schemas', async () => {
    for (let i = 0; i < 3; i++) {
      const app = serverWith(ITEM_ROUTE);
      const ok = await app.inject({ method: 'POST', url: '/items?size=2', payload: { count: i } });
      expect(ok.json()).toEqual({ count: i, label: 'none', size: 2 });
      const bad = await app.inject({ method: 'POST', url: '/items', payload: { count: 'x' } });
      expect(bad.statusCode).toBe(400);
    }
  });

  it('serializes by each route schema object, never by an earlier one of another server', async () => {
    serverWith(ITEM_ROUTE);
    const narrower = {
      ...ITEM_ROUTE,
      response: { 200: { type: 'object', properties: { count: { type: 'integer' } } } },
    };
    const app = serverWith(narrower);
    const ok = await app.inject({ method: 'POST', url: '/items?size=2', payload: { count: 7 } });
    expect(ok.json()).toEqual({ count: 7 });
  });

  it('compiles a schema at its first use: one that cannot compile is a 500 there, and is reported', async () => {
    // Unique to this test, so no earlier compilation in this process is found for it.
    const broken = { body: { type: 'object', properties: { n: { type: 'no such type' } } } };
    const app = serverWith(broken);
    await app.ready();
    expect(() => compileDeferredSchemas()).toThrow(/schema is invalid/);
    const first = await app.inject({ method: 'POST', url: '/items', payload: { n: 1 } });
    expect(first.statusCode).toBe(500);
    const again = await app.inject({ method: 'POST', url: '/items', payload: { n: 1 } });
    expect(again.statusCode).toBe(500);
  });

  it('compiles every request and response schema of the API', async () => {
    const server = await createTestServer();
    try {
      await server.app.ready();
      expect(() => compileDeferredSchemas()).not.toThrow();
    } finally {
      await server.dispose();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { pageQuery, paginated } from '../http/pagination.ts';

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
}

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer({
    version: '1.2.3',
    routes: (app) => {
      app.get(
        '/widgets',
        {
          config: { access: { permission: 'application:read' } },
          schema: {
            querystring: pageQuery({ maxSize: 100 }),
            response: { 200: paginated(Type.Object({ id: Type.String() })) },
          },
        },
        async () => ({
          pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 },
          data: [],
        }),
      );
      app.post(
        '/widgets/:id',
        { config: { access: 'public' }, schema: { params: Type.Object({ id: Type.String() }) } },
        async () => ({}),
      );
    },
  });
});

afterEach(async () => {
  await server.dispose();
});

async function fetchDocument(): Promise<OpenApiDocument> {
  const response = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json() as OpenApiDocument;
}

describe('GET /openapi.json', () => {
  it('describes the API, including routes registered after buildServer', async () => {
    const document = await fetchDocument();
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info).toEqual({ title: 'svc vault API', version: '1.2.3' });
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/healthz', '/widgets', '/widgets/{id}']),
    );
    expect(document.paths['/openapi.json']).toBeUndefined();
  });

  it('declares problem+json error responses with a shared Problem component', async () => {
    const document = await fetchDocument();
    expect(document.components.schemas.Problem).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']),
    });
    for (const path of ['/healthz', '/widgets']) {
      const responses = document.paths[path]?.get?.responses ?? {};
      for (const status of ['4XX', '5XX']) {
        expect(responses[status]?.content?.['application/problem+json']?.schema).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
    }
  });

  it('documents the pagination parameters', async () => {
    const document = await fetchDocument();
    const operation = document.paths['/widgets']?.get as unknown as {
      parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
    };
    const size = operation.parameters.find((p) => p.name === 'size');
    expect(size).toMatchObject({ in: 'query', schema: { minimum: 0, maximum: 100, default: 20 } });
  });
});

describe('security in /openapi.json', () => {
  interface Operation {
    security?: Array<Record<string, string[]>>;
    'x-permission'?: string;
    responses: Record<string, unknown>;
  }

  async function document() {
    const response = await server.app.inject({ method: 'GET', url: '/openapi.json' });
    return response.json() as {
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, Record<string, string>> };
    };
  }

  it('declares the SVC-API-KEY, bearer and tenant header schemes', async () => {
    const { components } = await document();
    expect(components.securitySchemes).toMatchObject({
      ApiKey: { type: 'apiKey', in: 'header', name: 'SVC-API-KEY' },
      BearerAuth: { type: 'http', scheme: 'bearer' },
      TenantId: { type: 'apiKey', in: 'header', name: 'SVC-TENANT-ID' },
    });
  });

  it('states each operation’s credentials and permission', async () => {
    const { paths } = await document();
    expect(paths['/healthz']?.get?.security).toEqual([]);
    expect(paths['/auth/login']?.post?.security).toEqual([]);
    expect(paths['/tenants']?.get?.security).toEqual([{ BearerAuth: [] }, { ConsoleSession: [] }]);
    expect(paths['/permissions']?.get?.security).toEqual([
      { ApiKey: [] },
      { BearerAuth: [] },
      { ConsoleSession: [] },
    ]);
    expect(paths['/console/token-access']?.get?.security).toEqual([{ ConsoleSession: [], TenantId: [] }]);
    const get = paths['/applications/{id}']?.get;
    // The operator credential acts as the tenant's operator (loopback only), so it is listed too.
    expect(get?.security).toEqual([
      { ApiKey: [] },
      { BearerAuth: [], TenantId: [] },
      { ConsoleSession: [], TenantId: [] },
      { OperatorKey: [], TenantId: [] },
    ]);
    expect(get?.['x-permission']).toBe('application:read');
    expect(paths['/widgets']?.get?.['x-permission']).toBe('application:read');
  });

  it('shows the key only in the create and regenerate responses', async () => {
    const { paths } = await document();
    const properties = (operation: Operation | undefined, status: string) =>
      Object.keys(
        (
          operation?.responses[status] as
            | { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } }
            | undefined
        )?.content['application/json'].schema.properties ?? {},
      );
    expect(properties(paths['/applications']?.post, '201')).toContain('key');
    expect(properties(paths['/applications/{id}/regenerate']?.post, '200')).toContain('key');
    for (const [path, method] of [
      ['/applications/{id}', 'get'],
      ['/applications/{id}', 'put'],
      ['/applications/key', 'get'],
    ] as const) {
      const names = properties(paths[path]?.[method], '200');
      expect(names, `${method} ${path}`).toContain('name');
      expect(names, `${method} ${path}`).not.toContain('key');
    }
  });
});

import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outboxTenancyOptions } from '../../core/services.ts';
import { Type } from 'typebox';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { OPERATION_IDS } from '../http/operation-ids.ts';
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

describe('operationId', () => {
  async function operations(): Promise<Array<{ key: string; operationId: string | undefined }>> {
    const document = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    return Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        operationId: operation.operationId,
      })),
    );
  }

  it('names every operation of the API once, from the one table', async () => {
    // The test-only widget routes are not the API's: nothing names them.
    const api = (await operations()).filter((o) => !o.key.includes('/widgets'));
    const unnamed = api.filter((o) => o.operationId === undefined).map((o) => o.key);
    expect(unnamed, 'add these to OPERATION_IDS in server/http/operation-ids.ts').toEqual([]);
    const ids = api.map((o) => o.operationId);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      'operationIds used twice',
    ).toEqual([]);
    for (const id of ids) expect(id).toMatch(/^[A-Z][A-Za-z]*_[A-Z][A-Za-z]*$/);
    // And the table names nothing that is gone.
    const keys = new Set(api.map((o) => o.key));
    expect(Object.keys(OPERATION_IDS).filter((key) => !keys.has(key))).toEqual([]);
  });

  it('gives each method of a route with several methods its own name', async () => {
    const proxy = (await operations()).filter((o) => o.key.endsWith(' /proxy'));
    expect(proxy.map((o) => o.operationId).sort()).toEqual([
      'Proxy_Delete',
      'Proxy_Get',
      'Proxy_Patch',
      'Proxy_Post',
      'Proxy_Put',
    ]);
  });

  it('keeps the names of the operations the API it follows names', async () => {
    const named = new Map((await operations()).map((o) => [o.key, o.operationId]));
    expect(named.get('POST /tokens')).toBe('Tokens_Create');
    expect(named.get('GET /tokens/{id}')).toBe('Tokens_GetById');
    expect(named.get('POST /reactors/{id}/react')).toBe('Reactors_React');
    expect(named.get('GET /tenants/self/members')).toBe('TenantMembers_GetMembers');
  });
});

describe('servers', () => {
  const servers = async (app: TestServer['app'], host: string) =>
    (
      (await app.inject({ method: 'GET', url: '/openapi.json', headers: { host } })).json() as {
        servers: Array<{ url: string }>;
      }
    ).servers;

  it('names this server as the caller reached it', async () => {
    expect(await servers(server.app, '127.0.0.1:8080')).toEqual([{ url: 'http://127.0.0.1:8080' }]);
    expect(await servers(server.app, 'localhost:9000')).toEqual([{ url: 'http://localhost:9000' }]);
  });

  it('names the public URL when the caller came through its host', async () => {
    const behind = await createTestServer({
      tenancy: {
        ...outboxTenancyOptions(tmpdir()),
        acceptBaseUrl: 'https://vault.example.com/invitations/accept',
      },
    });
    try {
      expect(await servers(behind.app, 'vault.example.com')).toEqual([{ url: 'https://vault.example.com' }]);
      expect(await servers(behind.app, '127.0.0.1:8080')).toEqual([{ url: 'http://127.0.0.1:8080' }]);
    } finally {
      await behind.dispose();
    }
  });
});

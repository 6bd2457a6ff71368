import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows } from '../../core/test-support/services-fixture.ts';
import { createKey, createTenantFixture, operator, type TenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

let server: TestServer;
let fx: TenantFixture;

beforeAll(async () => {
  server = await createTestServer();
  fx = await createTenantFixture(server.services, 'Proxies');
});
afterAll(async () => server.dispose());

interface ProxyJson {
  id: string;
  key: string;
  tenant_id: string;
  name: string;
  destination_url: string;
  application_id: string | null;
  configuration: Record<string, string>;
  require_auth: boolean;
  request_transform: unknown;
  response_transform: unknown;
  modified_at: string | null;
}

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  server.app.inject({
    method,
    url,
    headers: { 'svc-api-key': fx.admin.key },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

describe('proxy management', () => {
  it('creates with defaults and a vault-generated key that survives updates', async () => {
    const app = await createKey(server.services, fx.tenant.id, 'private', ['token:use']);
    const created = await call('POST', '/proxies', {
      name: 'Stripe',
      destination_url: 'https://api.stripe.example/v1',
      application: { id: app.id },
      configuration: { ACCOUNT: 'acct_1' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const proxy = created.json() as ProxyJson;
    expect(proxy).toMatchObject({
      name: 'Stripe',
      tenant_id: fx.tenant.id,
      destination_url: 'https://api.stripe.example/v1',
      application_id: app.id,
      configuration: { ACCOUNT: 'acct_1' },
      require_auth: true,
    });
    // No transform: the fields are left out, never null.
    expect(Object.keys(proxy)).not.toContain('request_transform');
    expect(Object.keys(proxy)).not.toContain('response_transform');
    expect(proxy.key).toMatch(/^[A-Za-z0-9]{32}$/);

    const updated = await call('PUT', `/proxies/${proxy.id}`, {
      name: 'Renamed',
      destination_url: 'https://api.other.example/',
      require_auth: false,
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const after = updated.json() as ProxyJson;
    expect(after).toMatchObject({ id: proxy.id, key: proxy.key, name: 'Renamed', require_auth: false });
    // Full replacement: what the update left out is gone.
    expect(after.application_id).toBeNull();
    expect(after.configuration).toEqual({});
    expect(after.modified_at).not.toBeNull();

    const got = await call('GET', `/proxies/${proxy.id}`);
    expect((got.json() as ProxyJson).key).toBe(proxy.key);

    const deleted = await call('DELETE', `/proxies/${proxy.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await call('GET', `/proxies/${proxy.id}`)).statusCode).toBe(404);

    const audit = (await auditRows(server.temp.vault, fx.tenant.id)).filter((r) => r.entity_id === proxy.id);
    expect(audit.map((r) => `${r.entity_type}:${r.operation}`)).toEqual([
      'proxy:create',
      'proxy:update',
      'proxy:read',
      'proxy:delete',
    ]);
  });

  it.each([
    [{ destination_url: 'http://api.example/' }, 'destination_url'],
    [{ destination_url: 'https://10.0.0.1/' }, 'destination_url'],
    [{ destination_url: 'https://[::1]/' }, 'destination_url'],
    [{ destination_url: 'https://u:p@api.example/' }, 'destination_url'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ configuration: { 'bad name': 'x' } }, 'configuration'],
    [{ application: { id: '00000000-0000-4000-8000-000000000000' } }, 'application.id'],
  ])('refuses %j (400 naming %s) and stores nothing', async (patch, field) => {
    const before = ((await call('GET', '/proxies')).json() as { pagination: { total_items: number } })
      .pagination.total_items;
    const response = await call('POST', '/proxies', {
      name: 'p',
      destination_url: 'https://api.example/',
      ...patch,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(Object.keys((response.json() as { errors: Record<string, unknown> }).errors).join(' ')).toContain(
      field,
    );
    const after = ((await call('GET', '/proxies')).json() as { pagination: { total_items: number } })
      .pagination.total_items;
    expect(after).toBe(before);
  });

  it('compiles transforms on save: 422 with line and column, nothing stored', async () => {
    const response = await call('POST', '/proxies', {
      name: 'p',
      destination_url: 'https://api.example/',
      response_transform: { code: 'const a = 1;\nconst b = ;\n' },
    });
    expect(response.statusCode, response.body).toBe(422);
    const errors = (response.json() as { errors: Record<string, string[]> }).errors;
    expect(errors['response_transform.code']?.[0]).toMatch(/^line 2, column \d+: SyntaxError/);
    const notFunction = await call('POST', '/proxies', {
      name: 'p',
      destination_url: 'https://api.example/',
      request_transform: { code: 'module.exports = 42;' },
    });
    expect(notFunction.statusCode).toBe(422);
    const ok = await call('POST', '/proxies', {
      name: 'p',
      destination_url: 'https://api.example/',
      request_transform: { code: 'module.exports = async (req) => req.args;' },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect((ok.json() as ProxyJson).request_transform).toEqual({
      code: 'module.exports = async (req) => req.args;',
    });
    // An update without it removes it (full replacement): the field goes, it does not become null.
    const removed = await call('PUT', `/proxies/${(ok.json() as ProxyJson).id}`, {
      name: 'p',
      destination_url: 'https://api.example/',
      request_transform: null,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(Object.keys(removed.json() as object)).not.toContain('request_transform');
  });

  it('refuses a management application as the proxy application', async () => {
    const response = await call('POST', '/proxies', {
      name: 'p',
      destination_url: 'https://api.example/',
      application: { id: fx.admin.id },
    });
    expect(response.statusCode).toBe(400);
  });

  it('lists with id and name filters, paginated, and only the own tenant', async () => {
    const op = operator(fx.tenant.id);
    const names = ['Alpha pay', 'Beta pay', 'Gamma ship'];
    const made = [];
    for (const name of names)
      made.push(await server.services.proxies.create(op, { name, destination_url: 'https://api.example/' }));
    const other = await createTenantFixture(server.services, 'Other');
    await server.services.proxies.create(operator(other.tenant.id), {
      name: 'Alpha pay',
      destination_url: 'https://api.example/',
    });

    const page = async (query: string) => {
      const response = await call('GET', `/proxies?${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { pagination: { total_items: number; page_size: number }; data: ProxyJson[] };
    };
    expect((await page('name=pay')).data.map((p) => p.name).sort()).toEqual(['Alpha pay', 'Beta pay']);
    expect((await page('name=*ship')).data.map((p) => p.name)).toEqual(['Gamma ship']);
    expect((await page('name=alpha*')).data.map((p) => p.name)).toEqual(['Alpha pay']);
    expect((await page('name=100%25')).data).toEqual([]);
    const byIds = await page(`id=${made[0]?.id}&id=${made[2]?.id}`);
    expect(byIds.data.map((p) => p.id).sort()).toEqual([made[0]?.id, made[2]?.id].sort());
    const first = await page('size=1&name=pay');
    expect(first.pagination).toMatchObject({ total_items: 2, page_size: 1 });
    expect(first.data).toHaveLength(1);
    expect((await call('GET', '/proxies?size=101')).statusCode).toBe(400);
  });
});

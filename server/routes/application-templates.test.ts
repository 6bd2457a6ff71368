import { beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_TEMPLATES } from '../../core/tenancy/application-templates.ts';
import { UNKNOWN_KEY, type TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  return () => server.dispose();
});

const get = (url: string, key = a.admin.key) =>
  server.app.inject({ method: 'GET', url, headers: { 'svc-api-key': key } });

interface TemplateJson {
  id: string;
  name: string;
  application_type: string;
  permissions: string[];
  rules: Array<Record<string, unknown>>;
}

describe('application templates', () => {
  it('lists the templates and gets each by id; 404 for others, 401 without a key', async () => {
    const list = await get('/application-templates');
    expect(list.statusCode).toBe(200);
    const templates = list.json<TemplateJson[]>();
    expect(templates.map((t) => t.name)).toEqual(APPLICATION_TEMPLATES.map((t) => t.name));
    for (const template of templates) {
      const one = await get(`/application-templates/${template.id.toUpperCase()}`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(template);
    }
    expect((await get('/application-templates/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await get('/application-templates/not-a-uuid')).statusCode).toBe(404);
    expect((await get('/application-templates', UNKNOWN_KEY)).statusCode).toBe(401);
  });

  it('every template creates a valid application as it stands', async () => {
    for (const template of (await get('/application-templates')).json<TemplateJson[]>()) {
      const created = await server.app.inject({
        method: 'POST',
        url: '/applications',
        headers: { 'svc-api-key': a.admin.key },
        payload: {
          name: template.name,
          type: template.application_type,
          permissions: template.permissions,
          rules: template.rules,
        },
      });
      expect(created.statusCode, `${template.name}: ${created.body}`).toBe(201);
    }
  });
});

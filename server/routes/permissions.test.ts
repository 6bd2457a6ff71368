import { beforeEach, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../core/access/permissions.ts';
import { createKey, type TenantFixture } from '../test-support/identity.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { createServerWithTenant } from '../test-support/tenant-server.ts';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  return () => server.dispose();
});

interface PermissionJson {
  type: string;
  description: string;
  application_types: string[];
}

describe('GET /permissions', () => {
  it('lists the catalogue to any valid key, whatever it may do', async () => {
    const weak = await createKey(server.services, a.tenant.id, 'public', ['token:create']);
    const response = await server.app.inject({
      method: 'GET',
      url: '/permissions',
      headers: { 'svc-api-key': weak.key },
    });
    expect(response.statusCode).toBe(200);
    const list = response.json() as PermissionJson[];
    expect(list).toHaveLength(PERMISSIONS.length);
    expect(list).toContainEqual({
      type: 'token:read',
      description: expect.any(String),
      application_types: ['private', 'expiring'],
    });
  });

  it('filters by application type', async () => {
    const get = (type: string) =>
      server.app.inject({
        method: 'GET',
        url: `/permissions?application_type=${type}`,
        headers: { 'svc-api-key': a.admin.key },
      });
    const publicOnes = (await get('public')).json() as PermissionJson[];
    expect(publicOnes.map((p) => p.type).sort()).toEqual(['token:create', 'token:update']);
    const management = (await get('management')).json() as PermissionJson[];
    expect(management.every((p) => p.application_types.includes('management'))).toBe(true);
    expect(management.map((p) => p.type)).toContain('log:read');
    const bad = await get('desktop');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: { application_type: expect.any(Array) } });
  });
});

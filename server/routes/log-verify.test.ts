import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenantFixture, type TenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

interface Verification {
  ok: boolean;
  entries: number;
  first_break: { seq: number; entry_id: string | null; reason: string } | null;
}

describe('GET /logs/verify', () => {
  let server: TestServer;
  let a: TenantFixture;
  let b: TenantFixture;

  beforeEach(async () => {
    server = await createTestServer();
    a = await createTenantFixture(server.services, 'Tenant A');
    b = await createTenantFixture(server.services, 'Tenant B');
    for (const name of ['one', 'two']) {
      await server.app.inject({
        method: 'POST',
        url: '/applications',
        headers: { 'svc-api-key': a.admin.key },
        payload: { name, type: 'management', permissions: ['log:read'] },
      });
    }
  });

  afterEach(async () => {
    await server.dispose();
  });

  const verify = async (key: string) => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/logs/verify',
      headers: { 'svc-api-key': key },
    });
    return { status: response.statusCode, body: response.json() as Verification };
  };

  it("reports an intact chain of the caller's tenant only", async () => {
    const { status, body } = await verify(a.admin.key);
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.first_break).toBeNull();
    const rows = await server.services.vault.db
      .selectFrom('audit_logs')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .execute();
    expect(body.entries).toBe(rows.length);
  });

  it("names the first altered entry, and another tenant's tampering does not show", async () => {
    const victim = await server.services.vault.db
      .selectFrom('audit_logs')
      .select(['id', 'seq'])
      .where('tenant_id', '=', a.tenant.id)
      .orderBy('seq', 'asc')
      .offset(1)
      .limit(1)
      .executeTakeFirstOrThrow();
    await server.services.vault.transaction(async (trx) => {
      await trx
        .updateTable('audit_logs')
        .set({ message: 'Nothing to see here' })
        .where('id', '=', victim.id)
        .execute();
    });
    const { status, body } = await verify(a.admin.key);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ok: false,
      first_break: { seq: victim.seq, entry_id: victim.id, reason: 'its contents were altered' },
    });
    expect((await verify(b.admin.key)).body).toMatchObject({ ok: true, first_break: null });
  });

  it('needs log:read', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/logs/verify' });
    expect(response.statusCode).toBe(401);
  });
});

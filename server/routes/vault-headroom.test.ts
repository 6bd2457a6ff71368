import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_STORAGE_LIMITS } from '../../core/backends/embedded/space-guard.ts';
import { testBackend } from '../../core/test-support/test-vault.ts';
import { OPERATOR_HEADER, operatorCredentialOf } from '../operator-credential.ts';
import { createKey, createTenantFixture, withKey, type TenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

const OPERATOR = 'operator-credential-of-this-test';
const onPostgres = testBackend() === 'postgres';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  server = await createTestServer({ operatorCredential: operatorCredentialOf(OPERATOR) });
  a = await createTenantFixture(server.services, 'Tenant A');
});

afterEach(async () => {
  await server.dispose();
});

/** What each backend answers: the embedded engine's limits, or none on PostgreSQL. */
function expectHeadroom(body: unknown): void {
  if (onPostgres) {
    expect(body).toMatchObject({
      warn_at: 0.8,
      database: { bytes: expect.any(Number), limit_bytes: null, used: null },
      disk: null,
    });
    return;
  }
  expect(body).toMatchObject({
    warn_at: 0.8,
    database: {
      bytes: expect.any(Number),
      limit_bytes: DEFAULT_STORAGE_LIMITS.maxDatabaseBytes,
      used: expect.any(Number),
    },
    disk: {
      free_bytes: expect.any(Number),
      total_bytes: expect.any(Number),
      reserve_bytes: DEFAULT_STORAGE_LIMITS.minFreeDiskBytes,
      used: expect.any(Number),
    },
  });
}

describe('GET /vault/headroom', () => {
  it("answers a tenant's caller the database size against its limit and the disk against the reserve", async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/vault/headroom',
      headers: withKey(a.admin.key),
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{ database: { bytes: number } }>();
    expectHeadroom(body);
    expect(body.database.bytes).toBeGreaterThan(0);
    // Sizes only: nothing that names the vault or where it is.
    expect(response.body).not.toContain(server.temp.vault.id);
    expect(response.body).not.toContain(server.temp.dir);
  });

  it('is refused without tenant:read (403) and without a credential (401)', async () => {
    const tokensOnly = await createKey(server.services, a.tenant.id, 'private', ['token:read'], 'reader');
    const refused = await server.app.inject({
      method: 'GET',
      url: '/vault/headroom',
      headers: withKey(tokensOnly.key),
    });
    expect(refused.statusCode, refused.body).toBe(403);
    const anonymous = await server.app.inject({ method: 'GET', url: '/vault/headroom' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('GET /operator/vault/status', () => {
  it('carries the headroom beside the fields it had', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/operator/vault/status',
      remoteAddress: '127.0.0.1',
      headers: { [OPERATOR_HEADER]: OPERATOR },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      vault_id: server.temp.vault.id,
      key_source: 'key',
      key_terms: [1],
      snapshot_bytes: expect.any(Number),
      journal_records: expect.any(Number),
    });
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining(['path', 'journal_path', 'created_at', 'format_version', 'lock_holder']),
    );
    expectHeadroom(body.headroom);
  });
});

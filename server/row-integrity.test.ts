import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createKey,
  createTenantFixture,
  signIn,
  withKey,
  type TenantFixture,
} from './test-support/identity.ts';
import type { TestServer } from './test-support/test-server.ts';
import { createServerWithTenant } from './test-support/tenant-server.ts';

const CARD = '4111111111111111';

let server: TestServer;
let a: TenantFixture;

beforeEach(async () => {
  ({ server, a } = await createServerWithTenant());
  return () => server.dispose();
});

/** A database administrator's statement, run on the vault's database. */
const tamper = (statement: ReturnType<typeof sql>) =>
  server.temp.vault.transaction((trx) => statement.execute(trx));

describe('a row changed outside the vault, over HTTP', () => {
  it('answers a 500 problem that names nothing, and logs the table and row for the operator', async () => {
    const key = await createKey(server.services, a.tenant.id, 'private', ['token:read', 'token:create']);
    const created = await server.app.inject({
      method: 'POST',
      url: '/tokens',
      headers: withKey(key.key),
      payload: { type: 'card_number', data: CARD },
    });
    expect(created.statusCode).toBe(201);
    const tokenId = (created.json() as { id: string }).id;

    // The administrator holds this key and raises it to reveal everything.
    await tamper(sql`update applications
      set rules = ${JSON.stringify([{ description: 'x', priority: 1, container: '/', permissions: ['token:read'], transform: 'reveal' }])}
      where id = ${key.id}`);
    const read = await server.app.inject({
      method: 'GET',
      url: `/tokens/${tokenId}`,
      headers: withKey(key.key),
    });
    expect(read.statusCode).toBe(500);
    expect(read.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = read.json() as { code: string; detail: string };
    expect(problem.code).toBe('INTEGRITY_FAILED');
    expect(read.body).not.toContain(CARD);
    expect(read.body).not.toContain(key.id);
    expect(problem.detail).toMatch(/SVC-TRACE-ID/);

    const logged = server.logs.text();
    expect(logged).toContain(`The applications row id=${key.id} failed its integrity check`);
    expect(logged).not.toContain(CARD);
    expect(logged).not.toContain('reveal');
  });

  it('refuses a sign-in with a password hash copied from another account', async () => {
    const b = await createTenantFixture(server.services, 'Tenant B');
    await tamper(sql`update users set password_hash = (select password_hash from users where id = ${b.owner.id})
      where id = ${a.owner.id}`);
    const login = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: a.ownerEmail, password: b.ownerPassword },
    });
    expect(login.statusCode).toBe(500);
    expect((login.json() as { code: string }).code).toBe('INTEGRITY_FAILED');
    expect(login.body).not.toContain('token');
    // Tenant B's owner, whose hash was copied, still signs in.
    expect(await signIn(server.services, b.ownerEmail, b.ownerPassword)).toMatch(/^svcs_/);
  });
});

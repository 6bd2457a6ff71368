import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorIn } from '../access/principal.ts';
import { createServices, outboxTenancyOptions } from '../services.ts';
import { findApplicationRow } from './application-store.ts';
import { updateAuthenticatedRow } from '../integrity/row-authenticator.ts';
import { makeTempSchema, postgresOrSkipNotice } from '../test-support/postgres.ts';
import { createExpiringApplication, openServicesFixture } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { FAST_KDF } from '../test-support/temp-vault.ts';
import { createPostgresVault, openPostgresVault } from '../backends/postgres/postgres-vault.ts';

/**
 * The API-key check keeps principals in memory on the embedded vault: every change to the key's
 * application or tenant must be seen by the very next request, exactly as without the memory.
 */
describe('API-key principals kept in memory', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    f = await openServicesFixture();
  });
  afterEach(() => f.close());

  const newApp = async () => {
    const { tenant } = await f.services.tenants.create({ name: 't', withApplication: false }, null);
    const operator = operatorIn(tenant.id);
    const app = await f.services.applications.create(operator, {
      name: 'a',
      type: 'private',
      permissions: ['token:read'],
    });
    return { operator, app, tenant };
  };

  it('refuses the old key right after a regenerate, and takes the new one', async () => {
    const { operator, app } = await newApp();
    expect(await f.services.auth.authenticateApiKey(app.key)).not.toBeNull();
    const renewed = await f.services.applications.regenerate(operator, app.id);
    expect(await f.services.auth.authenticateApiKey(app.key)).toBeNull();
    expect((await f.services.auth.authenticateApiKey(renewed.key))?.tenantId).toBe(app.tenant_id);
  });

  it('refuses the key right after its application or its tenant is deleted', async () => {
    const one = await newApp();
    const two = await newApp();
    expect(await f.services.auth.authenticateApiKey(one.app.key)).not.toBeNull();
    expect(await f.services.auth.authenticateApiKey(two.app.key)).not.toBeNull();
    await f.services.applications.delete(one.operator, one.app.id);
    expect(await f.services.auth.authenticateApiKey(one.app.key)).toBeNull();
    await f.services.tenants.delete(two.operator);
    expect(await f.services.auth.authenticateApiKey(two.app.key)).toBeNull();
  });

  it('serves the new permissions right after an update', async () => {
    const { operator, app } = await newApp();
    const before = await f.services.auth.authenticateApiKey(app.key);
    expect(before?.kind === 'application' && before.permissions).toEqual(['token:read']);
    await f.services.applications.update(operator, app.id, {
      name: 'a',
      permissions: ['token:read', 'token:create'],
    });
    const after = await f.services.auth.authenticateApiKey(app.key);
    expect(after?.kind === 'application' && after.permissions).toEqual(['token:read', 'token:create']);
  });

  it('refuses an expiring key once its time has passed, though it was served a moment before', async () => {
    const { operator } = await newApp();
    const { expiring } = await createExpiringApplication(f, operator, 30_000);
    expect(await f.services.auth.authenticateApiKey(expiring.key)).not.toBeNull();
    f.clock.advance(30_000);
    expect(await f.services.auth.authenticateApiKey(expiring.key)).toBeNull();
  });

  it('keeps nothing a rolled-back transaction read', async () => {
    const { operator, app } = await newApp();
    await expect(
      f.vault.transaction(async (trx) => {
        const row = await findApplicationRow(trx, f.vault, app.id);
        await updateAuthenticatedRow(trx, f.vault, 'applications', row!, { permissions: '[]' });
        // Read inside the transaction: the uncommitted grants.
        const inside = await f.services.auth.authenticateApiKey(app.key);
        expect(inside?.kind === 'application' && inside.permissions).toEqual([]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const after = await f.services.auth.authenticateApiKey(app.key);
    expect(after?.kind === 'application' && after.permissions).toEqual(['token:read']);
    expect(operator.tenantId).toBe(app.tenant_id);
  });

  it('hands out a principal nobody can modify', async () => {
    const { app } = await newApp();
    const principal = await f.services.auth.authenticateApiKey(app.key);
    expect(Object.isFrozen(principal)).toBe(true);
    expect(principal?.kind === 'application' && Object.isFrozen(principal.permissions)).toBe(true);
  });
});

const postgres = await postgresOrSkipNotice('core/tenancy/api-key-cache.test.ts (its PostgreSQL tests)');

describe.skipIf(!postgres)('API keys on PostgreSQL (several servers, one database)', () => {
  it('a key revoked through one server is refused by another at once', async () => {
    const schema = await makeTempSchema();
    const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
    const first = await createPostgresVault({ url: schema.url, key });
    const second = await openPostgresVault({ url: schema.url, key });
    const outbox = await mkdtemp(path.join(tmpdir(), 'svc-api-keys-'));
    try {
      expect(second.changes).toBeNull();
      // A vault in a database has no folder beside it for invitation mail: name one.
      const tenancy = outboxTenancyOptions(outbox);
      const a = createServices(first, { passwordKdf: FAST_KDF, tenancy });
      const b = createServices(second, { passwordKdf: FAST_KDF, tenancy });
      const { tenant } = await a.tenants.create({ name: 't', withApplication: false }, null);
      const app = await a.applications.create(operatorIn(tenant.id), {
        name: 'a',
        type: 'private',
        permissions: ['token:read'],
      });
      expect(await b.auth.authenticateApiKey(app.key)).not.toBeNull();
      await a.applications.regenerate(operatorIn(tenant.id), app.id);
      expect(await b.auth.authenticateApiKey(app.key)).toBeNull();
    } finally {
      await second.close();
      await first.close();
      await schema.drop();
      await rm(outbox, { recursive: true, force: true });
    }
  });
});

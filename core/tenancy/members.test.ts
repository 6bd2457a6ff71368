import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  auditRows,
  codeOf,
  detailOf,
  openServicesFixture,
  seedTenant,
} from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';

const BASE = 'http://127.0.0.1:8080/invitations/accept';

describe('members', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    f = await openServicesFixture({
      tenancy: {
        mail: { kind: 'outbox', dir: '/nonexistent-unused', from: 'v@example.com' },
        acceptBaseUrl: BASE,
      },
    });
  });
  afterEach(() => f.close());

  it('the owner cannot be removed; a removed member’s session loses the tenant at once', async () => {
    const acme = await seedTenant(f.services, 'Acme');
    const other = await seedTenant(f.services, 'Other', 'mallory@example.com', 'mallory password');
    // Mallory becomes an ADMIN of Acme through the service layer directly.
    await f.vault.transaction(async (trx) => {
      const { addMember } = await import('./members.ts');
      await addMember(trx, f.vault, acme.principal, {
        tenantId: acme.tenantId,
        userId: other.ownerId,
        role: 'ADMIN',
      });
    });
    const session = await f.services.auth.signIn('mallory@example.com', 'mallory password', '127.0.0.1');
    expect((await f.services.auth.authenticateSession(session.token, acme.tenantId)).principal).toMatchObject(
      {
        role: 'ADMIN',
      },
    );

    const members = await f.services.members.list(acme.principal, {}, { page: 1, size: 20 });
    expect(members.total).toBe(2);
    const owner = members.items.find((m) => m.role === 'OWNER');
    const mallory = members.items.find((m) => m.role === 'ADMIN');
    if (!owner || !mallory) throw new Error('members missing');
    expect(mallory.user).toEqual({
      id: other.ownerId,
      email: 'mallory@example.com',
      first_name: null,
      last_name: null,
    });
    const filtered = await f.services.members.list(
      acme.principal,
      { userIds: [other.ownerId] },
      { page: 1, size: 20 },
    );
    expect(filtered.items.map((m) => m.id)).toEqual([mallory.id]);

    expect(await detailOf(f.services.members.remove(acme.principal, owner.id))).toBe(
      'UNPROCESSABLE 422: The tenant owner cannot be removed; only other members can.',
    );
    expect(await codeOf(f.services.members.remove(other.principal, mallory.id))).toBe('NOT_FOUND');

    await f.services.members.remove(acme.principal, mallory.id);
    expect(await codeOf(f.services.auth.authenticateSession(session.token, acme.tenantId))).toBe('FORBIDDEN');
    // Their own tenant still works.
    expect(
      (await f.services.auth.authenticateSession(session.token, other.tenantId)).principal,
    ).toMatchObject({
      role: 'OWNER',
    });
    const rows = await auditRows(f.vault, acme.tenantId);
    expect(rows.at(-1)).toMatchObject({
      entity_type: 'tenantMember',
      entity_id: mallory.id,
      operation: 'delete',
    });
  });
});

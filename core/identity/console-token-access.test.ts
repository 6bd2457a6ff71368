import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorIn, type Principal } from '../access/principal.ts';
import { codeOf, openServicesFixture, type ServicesFixture } from '../test-support/services-fixture.ts';
import { SESSION_APPLICATION_GRANTS, sessionApplicationId } from './console-token-access.ts';

describe('console token access', () => {
  let f: ServicesFixture;
  let tenantId: string;
  let owner: { id: string; email: string; password: string };
  beforeEach(async () => {
    f = await openServicesFixture();
    const email = 'owner@example.test';
    const password = 'a good long password';
    const { tenant, owner: user } = await f.services.tenants.create(
      { name: 'Acme', ownerEmail: email, ownerPassword: password, withApplication: false },
      null,
    );
    tenantId = tenant.id;
    owner = { id: user!.id, email, password };
  });
  afterEach(() => f.close());

  async function memberSession(): Promise<{ token: string; member: Principal }> {
    const { token } = await f.services.auth.signIn(owner.email, owner.password, '127.0.0.1');
    const { principal } = await f.services.auth.authenticateSession(token, tenantId);
    return { token, member: principal! };
  }

  it('derives one application id per session and tenant, under the vault key', async () => {
    const id = sessionApplicationId(f.vault, 'session-1', tenantId);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sessionApplicationId(f.vault, 'session-1', tenantId)).toBe(id);
    expect(sessionApplicationId(f.vault, 'session-2', tenantId)).not.toBe(id);
    expect(sessionApplicationId(f.vault, 'session-1', 'another-tenant')).not.toBe(id);
  });

  it('makes the session application once, masked, acting for the member', async () => {
    const { member } = await memberSession();
    const first = await f.services.consoleTokenAccess.useSessionApplication(member);
    const second = await f.services.consoleTokenAccess.useSessionApplication(member);
    expect(second.application?.id).toBe(first.application?.id);
    const apps = await f.services.applications.list(operatorIn(tenantId), {}, { page: 1, size: 10 });
    expect(apps.items).toHaveLength(1);
    expect(apps.items[0]!.rules).toEqual(SESSION_APPLICATION_GRANTS.rules);

    const acting = await f.services.consoleTokenAccess.principalFor(member);
    expect(acting).toMatchObject({
      kind: 'application',
      applicationId: first.application?.id,
      actingFor: { userId: owner.id },
    });
    const { token } = await f.services.tokens.create(operatorIn(tenantId), { data: 'secret data' });
    const read = await f.services.tokens.get(acting!, token.id);
    expect(JSON.stringify(read)).not.toContain('secret data');
    const entry = await f.vault.db
      .selectFrom('audit_logs')
      .select(['actor_id', 'actor_type'])
      .where('entity_id', '=', token.id)
      .where('operation', '=', 'read')
      .executeTakeFirstOrThrow();
    expect(entry).toEqual({ actor_id: owner.id, actor_type: 'user' });
  });

  it('ends with the session: sign-out removes the application and forgets a given key', async () => {
    const { token, member } = await memberSession();
    await f.services.consoleTokenAccess.useSessionApplication(member);
    await f.services.auth.signOut(token);
    const apps = await f.services.applications.list(operatorIn(tenantId), {}, { page: 1, size: 10 });
    expect(apps.items).toHaveLength(0);
    expect(await f.services.consoleTokenAccess.principalFor(member)).toBeNull();
    // A session that is gone cannot make one again.
    expect(await codeOf(f.services.consoleTokenAccess.useSessionApplication(member))).toBe('UNAUTHENTICATED');
  });

  it('serves members only', async () => {
    expect(await codeOf(f.services.consoleTokenAccess.status(operatorIn(tenantId)))).toBe('FORBIDDEN');
    expect(await codeOf(f.services.consoleTokenAccess.useSessionApplication(operatorIn(tenantId)))).toBe(
      'FORBIDDEN',
    );
  });
});

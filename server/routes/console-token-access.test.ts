/**
 * The console session's token access over HTTP: the session application (masked, expiring with
 * the session, removed at sign-out, every read and the explicit reveal audited as the member) and
 * "act as an application" with a given key, which lasts for the session.
 */
import { whereLogFilter } from '../../core/audit/log-filter.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { DEFAULT_SESSION_TTL_MS } from '../../core/identity/sessions.ts';
import { ManualClock } from '../../core/vault/clock.ts';
import {
  asMember,
  createKey,
  createTenantFixture,
  operator,
  signIn,
  withKey,
  type TenantFixture,
} from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { CONSOLE_HOST, postConsoleLogin } from '../test-support/console.ts';

const HOST = CONSOLE_HOST;
const COOKIE = 'svc_console_8080';
const CARD = '4242424242424242';

interface CookieSession {
  readonly cookie: string;
  readonly csrf: string;
}

interface TokenAccess {
  mode: string;
  application: { id: string; name: string; expires_at: string | null } | null;
  session_application_allowed: boolean;
}

describe("the console session's token access", () => {
  let clock: ManualClock;
  let s: TestServer;
  let a: TenantFixture;
  let tokenId: string;
  beforeEach(async () => {
    clock = new ManualClock();
    s = await createTestServer({ clock });
    a = await createTenantFixture(s.services, 'Tenant A');
    const created = await s.services.tokens.create(operator(a.tenant.id), {
      type: 'card_number',
      data: CARD,
      metadata: { order: 'o-1' },
    });
    tokenId = created.token.id;
  });
  afterEach(() => s.dispose());

  async function login(): Promise<CookieSession> {
    const res = await postConsoleLogin(s.app, { email: a.ownerEmail, password: a.ownerPassword });
    expect(res.statusCode, res.body).toBe(200);
    const set = [res.headers['set-cookie']].flat().map(String)[0]!;
    return { cookie: set.split(';', 1)[0]!, csrf: res.json<{ csrf_token: string }>().csrf_token };
  }

  function call(session: CookieSession, options: InjectOptions): Promise<LightMyRequestResponse> {
    return s.app.inject({
      ...options,
      headers: {
        host: HOST,
        origin: `http://${HOST}`,
        cookie: session.cookie,
        'svc-csrf': session.csrf,
        'svc-tenant-id': a.tenant.id,
        ...options.headers,
      },
    });
  }

  /** The entries about `entityId`, lists and searches that returned it included. */
  async function auditOf(entityId: string) {
    return whereLogFilter(s.temp.vault.db.selectFrom('audit_logs'), { entityId })
      .select(['actor_id', 'actor_type', 'operation', 'message', 'revealed'])
      .orderBy('seq')
      .execute();
  }

  it('lets the owner read the tenant’s tokens masked, without a key, through a session application', async () => {
    const session = await login();
    expect(COOKIE).toBe(session.cookie.split('=')[0]);
    const before = await call(session, { method: 'GET', url: '/console/token-access' });
    expect(before.json<TokenAccess>()).toEqual({
      mode: 'none',
      application: null,
      session_application_allowed: true,
    });
    expect((await call(session, { method: 'GET', url: '/tokens' })).statusCode).toBe(403);

    const chosen = await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const access = chosen.json<TokenAccess>();
    expect(access.mode).toBe('session-application');
    expect(access.application?.name).toBe(`Console session of ${a.ownerEmail}`);
    // It expires with the session.
    expect(access.application?.expires_at).toBe(
      new Date(clock.now().getTime() + DEFAULT_SESSION_TTL_MS).toISOString(),
    );
    const app = await s.services.applications.get(operator(a.tenant.id), access.application!.id);
    expect(app.type).toBe('private');
    expect(app.rules.map((r) => [r.container, r.transform])).toEqual([['/', 'mask']]);
    expect(app.rules[0]!.permissions).not.toContain('token:use');
    // Its creation is the member's.
    expect((await auditOf(app.id))[0]).toMatchObject({
      actor_id: a.owner.id,
      actor_type: 'user',
      operation: 'create',
    });

    const list = await call(session, { method: 'GET', url: '/tokens' });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.body).not.toContain(CARD);
    const [listed] = list.json<{ data: Array<{ id: string; data?: string }> }>().data;
    expect(listed?.id).toBe(tokenId);
    expect(listed?.data).toMatch(/4242$/);
    const search = await call(session, {
      method: 'POST',
      url: '/tokens/search',
      payload: { query: 'metadata.order:o-1' },
    });
    expect(search.statusCode, search.body).toBe(200);
    expect(search.body).not.toContain(CARD);
    // Every read names the member, not the application.
    const reads = (await auditOf(tokenId)).filter((e) => e.operation === 'read');
    expect(reads.map((e) => e.message)).toEqual(['Tokens listed', 'Tokens searched']);
    for (const read of reads)
      expect(read).toMatchObject({ actor_id: a.owner.id, actor_type: 'user', revealed: 0 });
  });

  it('reveals one token only on the explicit request, audited as the member’s read', async () => {
    const session = await login();
    // Nothing to reveal through before token access is chosen.
    expect(
      (await call(session, { method: 'POST', url: `/console/tokens/${encodeURIComponent(tokenId)}/reveal` }))
        .statusCode,
    ).toBe(403);
    await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    // The ordinary read stays masked even when asked to reveal.
    const plain = await call(session, {
      method: 'GET',
      url: `/tokens/${encodeURIComponent(tokenId)}`,
      headers: { 'svc-view': 'reveal' },
    });
    expect(plain.body).not.toContain(CARD);
    const readsBefore = (await auditOf(tokenId)).length;
    const revealed = await call(session, {
      method: 'POST',
      url: `/console/tokens/${encodeURIComponent(tokenId)}/reveal`,
    });
    expect(revealed.statusCode, revealed.body).toBe(200);
    expect(revealed.json<{ data: string }>().data).toBe(CARD);
    expect(revealed.headers['cache-control']).toBe('no-store');
    const entries = await auditOf(tokenId);
    expect(entries.length).toBe(readsBefore + 1);
    expect(entries.at(-1)).toMatchObject({
      actor_id: a.owner.id,
      actor_type: 'user',
      operation: 'read',
      revealed: 1,
    });
    // A token of another tenant is a 404, like a missing one.
    const b = await createTenantFixture(s.services, 'Tenant B');
    const theirs = await s.services.tokens.create(operator(b.tenant.id), { data: 'their secret' });
    const cross = await call(session, {
      method: 'POST',
      url: `/console/tokens/${encodeURIComponent(theirs.token.id)}/reveal`,
    });
    expect(cross.statusCode).toBe(404);
    expect(cross.body).not.toContain('their secret');
  });

  it('is the console cookie’s only: a bearer token of the same member reads no token through it', async () => {
    const session = await login();
    await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    const bearer = await signIn(s.services, a.ownerEmail, a.ownerPassword);
    expect(
      (await s.app.inject({ method: 'GET', url: '/tokens', headers: asMember(bearer, a.tenant.id) }))
        .statusCode,
    ).toBe(403);
    expect(
      (
        await s.app.inject({
          method: 'GET',
          url: '/console/token-access',
          headers: asMember(bearer, a.tenant.id),
        })
      ).statusCode,
    ).toBe(403);
  });

  it('removes the session application at sign-out, and lets it expire with the session', async () => {
    const session = await login();
    const chosen = await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    const appId = chosen.json<TokenAccess>().application!.id;
    expect((await call(session, { method: 'POST', url: '/auth/logout' })).statusCode).toBe(204);
    const gone = await s.app.inject({
      method: 'GET',
      url: `/applications/${appId}`,
      headers: withKey(a.admin.key),
    });
    expect(gone.statusCode).toBe(404);
    expect((await auditOf(appId)).at(-1)).toMatchObject({
      actor_id: a.owner.id,
      operation: 'delete',
      message: 'Application removed: its console session ended',
    });

    // A session that is never signed out: its application dies with it.
    const next = await login();
    const again = await call(next, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    const nextId = again.json<TokenAccess>().application!.id;
    expect(nextId).not.toBe(appId);
    clock.advance(DEFAULT_SESSION_TTL_MS);
    expect((await call(next, { method: 'GET', url: '/tokens' })).statusCode).toBe(401);
    expect(await s.services.applications.sweepExpired()).toBe(1);
    const expired = await s.app.inject({
      method: 'GET',
      url: `/applications/${nextId}`,
      headers: withKey(a.admin.key),
    });
    expect(expired.statusCode).toBe(404);
  });

  it('acts as the application of a given key for the rest of the session', async () => {
    const session = await login();
    await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    const reader = await s.services.applications.create(operator(a.tenant.id), {
      name: 'Checkout backend',
      type: 'private',
      rules: [
        { description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] },
      ],
    });
    const b = await createTenantFixture(s.services, 'Tenant B');
    const theirs = await createKey(s.services, b.tenant.id, 'private', ['token:read']);
    const management = await createKey(s.services, a.tenant.id, 'management', ['tenant:read']);
    for (const key of ['key_NotAKeyOfThisVault0000', theirs.key, management.key]) {
      const refused = await call(session, {
        method: 'PUT',
        url: '/console/token-access',
        payload: { mode: 'application', key },
      });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(Object.keys(refused.json<{ errors: object }>().errors)).toEqual(['key']);
      expect(refused.body).not.toContain(key);
    }
    const given = await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'application', key: reader.key },
    });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json<TokenAccess>()).toMatchObject({
      mode: 'application',
      application: { id: reader.id, name: 'Checkout backend' },
    });
    expect(given.body).not.toContain(reader.key);
    // Choosing it removed the session application.
    const apps = await s.services.applications.list(operator(a.tenant.id), {}, { page: 1, size: 100 });
    expect(apps.items.some((app) => app.name.startsWith('Console session of'))).toBe(false);

    // Later requests of the session (a reload, a new tab) act as it, with its own transform.
    const read = await call(session, { method: 'GET', url: `/tokens/${encodeURIComponent(tokenId)}` });
    expect(read.json<{ data: string }>().data).toBe(CARD);
    expect((await auditOf(tokenId)).at(-1)).toMatchObject({ actor_id: reader.id, actor_type: 'application' });
    const status = await call(session, { method: 'GET', url: '/console/token-access' });
    expect(status.json<TokenAccess>().mode).toBe('application');

    // A regenerated key ends the choice at once.
    await s.services.applications.regenerate(operator(a.tenant.id), reader.id);
    expect((await call(session, { method: 'GET', url: '/tokens' })).statusCode).toBe(403);
    expect(
      (await call(session, { method: 'GET', url: '/console/token-access' })).json<TokenAccess>().mode,
    ).toBe('none');
  });

  it('forgets the choice on request', async () => {
    const session = await login();
    const made = await call(session, {
      method: 'PUT',
      url: '/console/token-access',
      payload: { mode: 'session-application' },
    });
    const appId = made.json<TokenAccess>().application!.id;
    const forgotten = await call(session, { method: 'DELETE', url: '/console/token-access' });
    expect(forgotten.json<TokenAccess>().mode).toBe('none');
    expect((await auditOf(appId)).at(-1)).toMatchObject({ operation: 'delete', actor_id: a.owner.id });
    expect((await call(session, { method: 'GET', url: '/tokens' })).statusCode).toBe(403);
  });
});

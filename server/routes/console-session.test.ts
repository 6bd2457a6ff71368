/**
 * The console's cookie session: attributes of the cookie, the CSRF checks every cookie request
 * passes, expiry on the vault clock, sign-out, and the credentials of API clients, which mean what
 * they meant before the cookie existed (the proxy never takes the cookie at all).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { DEFAULT_SESSION_TTL_MS } from '../../core/identity/sessions.ts';
import { FAST_KDF } from '../../core/test-support/temp-vault.ts';
import { outboxTenancyOptions } from '../../core/services.ts';
import { ManualClock } from '../../core/vault/clock.ts';
import { consoleSignInLink } from './console-sessions.ts';
import {
  asMember,
  createKey,
  createTenantFixture,
  signIn,
  type TenantFixture,
} from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';
import { CONSOLE_HOST, postConsoleLogin } from '../test-support/console.ts';

const HOST = CONSOLE_HOST;
const ORIGIN = `http://${HOST}`;
const COOKIE = 'svc_console_8080';

interface CookieSession {
  readonly cookie: string;
  readonly csrf: string;
  readonly expiresAt: string;
}

/** The Set-Cookie headers of a response, as a list. */
function setCookies(res: LightMyRequestResponse): string[] {
  const header = res.headers['set-cookie'];
  return header === undefined ? [] : [header].flat().map(String);
}

/** The console cookie's value from a sign-in answer. */
function cookieOf(res: LightMyRequestResponse): string {
  const set = setCookies(res).find((c) => c.startsWith(`${COOKIE}=`));
  if (set === undefined) throw new Error(`no ${COOKIE} in ${JSON.stringify(res.headers)}`);
  return `${COOKIE}=${set.slice(COOKIE.length + 1).split(';', 1)[0]}`;
}

/** A request as the console page sends it: same-origin, with the cookie and SVC-CSRF. */
function fromConsole(session: CookieSession, options: InjectOptions, tenantId?: string): InjectOptions {
  return {
    ...options,
    headers: {
      host: HOST,
      origin: ORIGIN,
      'sec-fetch-site': 'same-origin',
      cookie: session.cookie,
      'svc-csrf': session.csrf,
      ...(tenantId === undefined ? {} : { 'svc-tenant-id': tenantId }),
      ...options.headers,
    },
  };
}

describe('the console cookie session', () => {
  let clock: ManualClock;
  let s: TestServer;
  let a: TenantFixture;
  beforeEach(async () => {
    clock = new ManualClock();
    s = await createTestServer({ clock, console: { passwordKdf: FAST_KDF } });
    a = await createTenantFixture(s.services, 'Tenant A');
  });
  afterEach(() => s.dispose());

  async function login(email = a.ownerEmail, password = a.ownerPassword): Promise<CookieSession> {
    const res = await postConsoleLogin(s.app, { email, password }, { host: HOST, origin: ORIGIN });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ csrf_token: string; expires_at: string }>();
    return { cookie: cookieOf(res), csrf: body.csrf_token, expiresAt: body.expires_at };
  }

  it('keeps the session in an HttpOnly, SameSite=Strict, host-only cookie that expires with it', async () => {
    const res = await postConsoleLogin(s.app, { email: a.ownerEmail, password: a.ownerPassword });
    expect(res.statusCode, res.body).toBe(200);
    const [set] = setCookies(res);
    expect(set).toMatch(new RegExp(`^${COOKIE}=svcs_[0-9A-Za-z]{43}; `));
    const attributes = set!
      .split(';')
      .slice(1)
      .map((p) => p.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['path=/', 'httponly', 'samesite=strict']));
    expect(attributes.some((p) => p.startsWith('domain'))).toBe(false);
    // Plain HTTP: not Secure (the browser would drop it), and no __Host- prefix.
    expect(attributes).not.toContain('secure');
    const body = res.json<{ expires_at: string; csrf_token: string }>();
    expect(new Date(attributes.find((p) => p.startsWith('expires='))!.slice(8)).getTime()).toBe(
      Math.floor(Date.parse(body.expires_at) / 1000) * 1000,
    );
    expect(Date.parse(body.expires_at) - clock.now().getTime()).toBe(DEFAULT_SESSION_TTL_MS);
    // The token is in the cookie only, never in the body; the answer is not cached.
    expect(Object.keys(body).sort()).toEqual(['csrf_token', 'expires_at']);
    expect(res.body).not.toContain('svcs_');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is Secure and __Host- prefixed when the browser reaches the vault over TLS (an https public URL)', async () => {
    const tls = await createTestServer({
      tenancy: {
        ...outboxTenancyOptions(s.temp.dir),
        acceptBaseUrl: 'https://vault.example.test/invitations/accept',
      },
    });
    try {
      const b = await createTenantFixture(tls.services, 'Tenant B');
      const res = await postConsoleLogin(
        tls.app,
        { email: b.ownerEmail, password: b.ownerPassword },
        { host: 'vault.example.test' },
      );
      expect(res.statusCode, res.body).toBe(200);
      const [set] = setCookies(res);
      expect(set).toMatch(/^__Host-svc_console=svcs_/);
      expect(set!.toLowerCase()).toContain('; secure');
      expect(set!.toLowerCase()).toContain('; path=/');
    } finally {
      await tls.dispose();
    }
  });

  it('keeps a reloaded page signed in: GET /console/session tells who and the CSRF value, without needing it', async () => {
    const session = await login();
    const res = await s.app.inject({
      method: 'GET',
      url: '/console/session',
      headers: { host: HOST, cookie: session.cookie },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      user_id: a.owner.id,
      email: a.ownerEmail,
      expires_at: session.expiresAt,
      csrf_token: session.csrf,
    });
    // A bearer token's session has no CSRF value: it needs none.
    const bearer = await signIn(s.services, a.ownerEmail, a.ownerPassword);
    const viaBearer = await s.app.inject({
      method: 'GET',
      url: '/console/session',
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(viaBearer.json<{ csrf_token: unknown }>().csrf_token).toBeNull();
  });

  it('refuses a cookie request without SVC-CSRF, with a wrong one, from another origin or site', async () => {
    const session = await login();
    const other = await login();
    const read: InjectOptions = { method: 'GET', url: '/tenants/self' };
    expect((await s.app.inject(fromConsole(session, read, a.tenant.id))).statusCode).toBe(200);

    const refusals: Array<[string, Record<string, string | undefined>]> = [
      ['no SVC-CSRF', { 'svc-csrf': undefined }],
      ["another session's SVC-CSRF", { 'svc-csrf': other.csrf }],
      ['a foreign Origin', { origin: 'http://evil.example' }],
      ['the same host on another port', { origin: 'http://127.0.0.1:9999' }],
      ['an opaque Origin', { origin: 'null' }],
      ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
    ];
    for (const [what, headers] of refusals) {
      const request = fromConsole(session, read, a.tenant.id);
      const merged = { ...(request.headers as Record<string, string>), ...headers };
      for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
      const res = await s.app.inject({ ...request, headers: merged });
      expect(res.statusCode, what).toBe(403);
      expect(res.json<{ detail: string }>().detail, what).toMatch(/console session/);
    }
  });

  it('refuses a state-changing cookie request without an Origin, and does nothing', async () => {
    const session = await login();
    const change: InjectOptions = { method: 'PUT', url: '/tenants/self', payload: { name: 'Changed' } };
    const noOrigin = fromConsole(session, change, a.tenant.id);
    delete (noOrigin.headers as Record<string, string>).origin;
    expect((await s.app.inject(noOrigin)).statusCode).toBe(403);
    // A form post from another page: no custom header can be sent, so no SVC-CSRF.
    const form = await s.app.inject({
      method: 'POST',
      url: '/tenants',
      headers: { host: HOST, origin: 'http://evil.example', cookie: session.cookie },
      payload: 'name=Evil',
    });
    expect(form.statusCode).toBe(403);
    expect((await s.services.tenants.listForUser(a.owner.id)).map((t) => t.name)).toEqual(['Tenant A']);
    const done = await s.app.inject(fromConsole(session, change, a.tenant.id));
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json<{ name: string }>().name).toBe('Changed');
  });

  it('expires on the server at the session expiry', async () => {
    const session = await login();
    clock.advance(DEFAULT_SESSION_TTL_MS - 1);
    expect((await s.app.inject(fromConsole(session, { method: 'GET', url: '/tenants' }))).statusCode).toBe(
      200,
    );
    clock.advance(1);
    const expired = await s.app.inject(fromConsole(session, { method: 'GET', url: '/console/session' }));
    expect(expired.statusCode).toBe(401);
    expect((await s.app.inject(fromConsole(session, { method: 'GET', url: '/tenants' }))).statusCode).toBe(
      401,
    );
  });

  it('signs out: the session is revoked and the cookie cleared', async () => {
    const session = await login();
    const out = await s.app.inject(fromConsole(session, { method: 'POST', url: '/auth/logout' }));
    expect(out.statusCode, out.body).toBe(204);
    const [cleared] = setCookies(out);
    expect(cleared).toMatch(new RegExp(`^${COOKIE}=; `));
    expect(cleared!.toLowerCase()).toContain('max-age=0');
    const after = await s.app.inject(fromConsole(session, { method: 'GET', url: '/console/session' }));
    expect(after.statusCode).toBe(401);
  });

  it('ends the session a browser held when it signs in again', async () => {
    const first = await login();
    const res = await postConsoleLogin(
      s.app,
      { email: a.ownerEmail, password: a.ownerPassword },
      { host: HOST, origin: ORIGIN, cookie: first.cookie },
    );
    expect(res.statusCode).toBe(200);
    expect((await s.app.inject(fromConsole(first, { method: 'GET', url: '/tenants' }))).statusCode).toBe(401);
  });

  it('sets no cookie for a failed sign-in', async () => {
    const res = await postConsoleLogin(s.app, { email: a.ownerEmail, password: 'wrong password' });
    expect(res.statusCode).toBe(401);
    expect(setCookies(res)).toEqual([]);
  });

  it('exchanges a one-time link exactly once, for the cookie', async () => {
    const secret = consoleSignInLink(s.app, ORIGIN).split('#')[1]!;
    const first = await s.app.inject({
      method: 'POST',
      url: '/console/sessions',
      headers: { host: HOST },
      payload: { secret },
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).not.toContain('svcs_');
    const session: CookieSession = {
      cookie: cookieOf(first),
      csrf: first.json<{ csrf_token: string }>().csrf_token,
      expiresAt: '',
    };
    expect((await s.app.inject(fromConsole(session, { method: 'GET', url: '/tenants' }))).statusCode).toBe(
      200,
    );
    const again = await s.app.inject({
      method: 'POST',
      url: '/console/sessions',
      headers: { host: HOST },
      payload: { secret },
    });
    expect(again.statusCode).toBe(401);
    expect(setCookies(again)).toEqual([]);
  });

  it('leaves API keys and bearer tokens as they were: the cookie is read only without either', async () => {
    const session = await login();
    const key = await createKey(s.services, a.tenant.id, 'management', ['tenant:read'], 'reader');
    // An API key next to the cookie acts as the key (it may read the tenant, not update it).
    const withKey = await s.app.inject({
      method: 'PUT',
      url: '/tenants/self',
      headers: { host: HOST, cookie: session.cookie, 'svc-api-key': key.key },
      payload: { name: 'Changed' },
    });
    expect(withKey.statusCode).toBe(403);
    // A bad bearer token next to a good cookie is a 401: the cookie is not read.
    const badBearer = await s.app.inject({
      method: 'GET',
      url: '/tenants',
      headers: {
        host: HOST,
        cookie: session.cookie,
        'svc-csrf': session.csrf,
        authorization: 'Bearer svcs_nope',
      },
    });
    expect(badBearer.statusCode).toBe(401);
    // Another Authorization scheme (meant for a proxied destination) is no credential, cookie or not.
    const basic = await s.app.inject({
      method: 'GET',
      url: '/tenants',
      headers: { host: HOST, cookie: session.cookie, 'svc-csrf': session.csrf, authorization: 'Basic eDp5' },
    });
    expect(basic.statusCode).toBe(401);
    // A bearer token works as before, without any CSRF header.
    const bearer = await signIn(s.services, a.ownerEmail, a.ownerPassword);
    const viaBearer = await s.app.inject({
      method: 'PUT',
      url: '/tenants/self',
      headers: asMember(bearer, a.tenant.id),
      payload: { name: 'By bearer' },
    });
    expect(viaBearer.statusCode).toBe(200);
  });

  it('opens no operator endpoint and no proxy with the cookie', async () => {
    const session = await login();
    const operatorRoute = await s.app.inject(
      fromConsole(session, { method: 'POST', url: '/operator/tenants', payload: { name: 'x' } }),
    );
    expect(operatorRoute.statusCode).toBe(403);
    const proxy = await s.services.proxies.create(
      { kind: 'operator', tenantId: a.tenant.id },
      { name: 'needs a key', destination_url: 'https://api.example.test/', require_auth: true },
    );
    const viaProxy = await s.app.inject(
      fromConsole(session, {
        method: 'POST',
        url: '/proxy/charge',
        headers: { 'svc-proxy-key': proxy.key, 'content-type': 'application/json' },
        payload: { n: 1 },
      }),
    );
    // The proxy wants an application key; the console cookie is not one.
    expect(viaProxy.statusCode).toBe(401);
  });
});

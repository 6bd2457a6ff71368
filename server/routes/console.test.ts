import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_TIME_LINK_TTL_MS } from '../../core/identity/one-time-sign-in.ts';
import { bootstrapEmbeddedDefault } from '../../core/tenancy/bootstrap.ts';
import { FAST_KDF } from '../../core/test-support/temp-vault.ts';
import { ManualClock } from '../../core/vault/clock.ts';
import { consoleSignInLink } from './console-sessions.ts';
import { createTenantFixture } from '../test-support/identity.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-console-'));
  await mkdir(join(root, 'assets'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  await writeFile(join(root, '..', 'outside.txt'), 'not served');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(join(root, '..', 'outside.txt'), { force: true });
});

async function server(clock = new ManualClock()): Promise<TestServer> {
  return createTestServer({ clock, console: { root, passwordKdf: FAST_KDF } });
}

const secretOf = (link: string) => link.slice(link.indexOf('#') + 1);

/** The headers the console page sends with the session a sign-in answer set in its cookie. */
function consoleHeaders(res: LightMyRequestResponse): Record<string, string> {
  const cookie = [res.headers['set-cookie']].flat().map(String)[0]!.split(';', 1)[0]!;
  return { cookie, 'svc-csrf': res.json<{ csrf_token: string }>().csrf_token };
}

describe('serving the console', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await server();
  });
  afterAll(() => s.dispose());

  it('serves index.html with a strict CSP and no caching', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('answers the console pages with index.html and hashed assets with a year of caching', async () => {
    const page = await s.app.inject({ method: 'GET', url: '/console/tokens' });
    expect(page.body).toContain('<title>console</title>');
    const asset = await s.app.inject({ method: 'GET', url: '/console/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('text/javascript');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves /console like /console/', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/console' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>console</title>');
  });

  it('serves nothing outside its folder and 404s missing files', async () => {
    for (const url of [
      '/console/../outside.txt',
      '/console/%2e%2e/outside.txt',
      '/console/assets/missing.js',
    ]) {
      const res = await s.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('not served');
    }
  });

  it('says how to build the console when it is not built', async () => {
    const bare = await createTestServer({ console: { root: join(root, 'nothing-here') } });
    try {
      const res = await bare.app.inject({ method: 'GET', url: '/console/' });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toContain('npm run build');
    } finally {
      await bare.dispose();
    }
  });
});

describe('one-time sign-in link', () => {
  it('is exchanged once for a session of the tenant owner', async () => {
    const s = await server();
    try {
      const a = await createTenantFixture(s.services, 'Tenant A');
      const link = consoleSignInLink(s.app, 'http://127.0.0.1:1234');
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:1234\/console\/#svco_[0-9A-Za-z]{43}$/);
      const first = await s.app.inject({
        method: 'POST',
        url: '/console/sessions',
        payload: { secret: secretOf(link) },
      });
      expect(first.statusCode, first.body).toBe(200);
      const tenants = await s.app.inject({ method: 'GET', url: '/tenants', headers: consoleHeaders(first) });
      expect(tenants.statusCode).toBe(200);
      expect(tenants.body).toContain(a.tenant.id);

      const again = await s.app.inject({
        method: 'POST',
        url: '/console/sessions',
        payload: { secret: secretOf(link) },
      });
      expect(again.statusCode).toBe(401);
      expect(again.body).not.toContain(secretOf(link));
    } finally {
      await s.dispose();
    }
  });

  it('dies after five minutes', async () => {
    const clock = new ManualClock();
    const s = await server(clock);
    try {
      await createTenantFixture(s.services, 'Tenant A');
      const link = consoleSignInLink(s.app, 'http://127.0.0.1');
      clock.advance(ONE_TIME_LINK_TTL_MS);
      const res = await s.app.inject({
        method: 'POST',
        url: '/console/sessions',
        payload: { secret: secretOf(link) },
      });
      expect(res.statusCode).toBe(401);
    } finally {
      await s.dispose();
    }
  });

  it('refuses unknown secrets', async () => {
    const s = await server();
    try {
      await createTenantFixture(s.services, 'Tenant A');
      for (const secret of ['nope', 'svco_' + 'A'.repeat(43)]) {
        const res = await s.app.inject({ method: 'POST', url: '/console/sessions', payload: { secret } });
        expect(res.statusCode).toBe(401);
      }
    } finally {
      await s.dispose();
    }
  });

  it('asks the holder of the link to claim the unclaimed default owner, then signs in as it', async () => {
    const s = await server();
    try {
      const boot = await bootstrapEmbeddedDefault(s.temp.vault);
      const secret = secretOf(consoleSignInLink(s.app, 'http://127.0.0.1'));
      const ask = await s.app.inject({ method: 'POST', url: '/console/sessions', payload: { secret } });
      expect(ask.statusCode).toBe(400);
      expect(Object.keys(ask.json<{ errors: object }>().errors)).toEqual(['owner']);

      const bad = await s.app.inject({
        method: 'POST',
        url: '/console/sessions',
        payload: { secret, owner: { email: 'not an e-mail', password: 'short' } },
      });
      expect(bad.statusCode).toBe(400);
      expect(Object.keys(bad.json<{ errors: object }>().errors).sort()).toEqual(['email', 'password']);

      const owner = { email: 'owner@example.test', password: 'a good long password', first_name: 'Olga' };
      const ok = await s.app.inject({ method: 'POST', url: '/console/sessions', payload: { secret, owner } });
      expect(ok.statusCode, ok.body).toBe(200);
      const members = await s.app.inject({
        method: 'GET',
        url: '/tenants/self/members',
        headers: { ...consoleHeaders(ok), 'svc-tenant-id': boot!.tenantId },
      });
      expect(members.statusCode, members.body).toBe(200);
      // The existing owner user was claimed: still the one OWNER, now with the given details.
      expect(members.body).toContain('owner@example.test');
      expect(members.body).toContain('OWNER');
      expect(members.body).not.toContain('owner@vault.localhost');
      expect(await s.services.users.findByEmail('owner@vault.localhost')).toBeNull();
      const claimed = await s.services.users.findByEmail(owner.email);
      expect(claimed?.first_name).toBe('Olga');
      expect(claimed?.id).toBe(
        (await s.temp.vault.db.selectFrom('tenants').select('owner_id').executeTakeFirst())?.owner_id,
      );
      const audit = await s.temp.vault.db
        .selectFrom('audit_logs')
        .select('message')
        .where('message', 'like', '%claimed%')
        .execute();
      expect(audit).toHaveLength(1);

      // The owner now signs in with e-mail and password too.
      const login = await s.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { email: owner.email, password: owner.password },
      });
      expect(login.statusCode).toBe(200);

      // A second link signs in as that owner; giving an owner again is refused.
      const next = secretOf(consoleSignInLink(s.app, 'http://127.0.0.1'));
      const twice = await s.app.inject({
        method: 'POST',
        url: '/console/sessions',
        payload: { secret: next, owner },
      });
      expect(twice.statusCode).toBe(400);
      const plain = await s.app.inject({
        method: 'POST',
        url: '/console/sessions',
        payload: { secret: next },
      });
      expect(plain.statusCode).toBe(200);
    } finally {
      await s.dispose();
    }
  });
});

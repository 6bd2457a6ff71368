import { describe, expect, it } from 'vitest';
import { acceptLinkOf } from '../../core/test-support/smtp-sink.ts';
import { createTenantFixture } from '../test-support/identity.ts';
import { useInvitationsWorld } from '../test-support/invitations.ts';

const world = useInvitationsWorld();
const { invite, accept } = world;

describe('GET /invitations/accept', () => {
  it('answers a static page whose script posts to the accept endpoint; the secret is not echoed', async () => {
    const secret = `svci_${'A'.repeat(43)}`;
    const page = await world.server.app.inject({ method: 'GET', url: `/invitations/accept?token=${secret}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    // Its one style sheet is pinned by hash too: nothing inline runs or styles unless it is this page's.
    expect(page.headers['content-security-policy']).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.body).toContain('<form id="accept"');
    // It ends with a way into the console, not a tenant id.
    expect(page.body).toContain('<a id="sign-in" class="button" href="/console/">Sign in</a>');
    expect(page.body).not.toContain(secret);
    expect(world.server.logs.text()).not.toContain(secret);
  });
});

describe('POST /invitations/accept for an existing account', () => {
  it('is throttled with the account’s sign-in throttle: 429 with Retry-After after repeated wrong passwords', async () => {
    const b = await createTenantFixture(world.server.services, 'Tenant B');
    expect((await invite(b.ownerEmail)).statusCode).toBe(201);
    const { secret } = acceptLinkOf((await world.smtp.message(1)).parsed);
    for (let i = 0; i < 5; i++)
      expect((await accept({ token: secret, password: `wrong guess ${i}` })).statusCode).toBe(401);
    const throttled = await accept({ token: secret, password: b.ownerPassword });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('1');
    world.clock.advance(1000);
    expect((await accept({ token: secret, password: b.ownerPassword })).statusCode).toBe(201);
  });
});

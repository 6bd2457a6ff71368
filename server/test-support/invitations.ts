import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../core/test-support/smtp-sink.ts';
import { ManualClock } from '../../core/vault/clock.ts';
import { createTenantFixture, withKey, type TenantFixture } from './identity.ts';
import { createTestServer, type TestServer } from './test-server.ts';

/** The base of the links mailed by the world's server (a fixed one: it does not listen). */
export const ACCEPT_BASE = 'http://vault.test/invitations/accept';

/** What a new user gives when accepting an invitation. */
export const NEW_USER = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  password: 'correct horse battery staple',
};

/**
 * The tests of the invitation, member and usage routes share one world: a real SMTP server for the
 * file, and for each test a server on a manual clock that mails through it, with a tenant `a`.
 */
export interface InvitationsWorld {
  readonly smtp: SmtpSink;
  readonly server: TestServer;
  readonly clock: ManualClock;
  readonly a: TenantFixture;
  /** POST /tenants/self/invitations with `key` (tenant a's management key by default). */
  invite(email: string, key?: string): Promise<LightMyRequestResponse>;
  /** POST /invitations/accept. */
  accept(payload: Record<string, unknown>): Promise<LightMyRequestResponse>;
}

/**
 * One test per `[url, status]`: a GET with tenant a's management key answers that status, and a 400
 * is a problem+json body (the page-parameter bounds of the invitation and member lists).
 */
export function itAnswersGets(
  world: InvitationsWorld,
  cases: ReadonlyArray<readonly [string, number]>,
): void {
  it.each(cases)('%s → %i', async (url, status) => {
    const response = await world.server.app.inject({
      method: 'GET',
      url,
      headers: withKey(world.a.admin.key),
    });
    expect(response.statusCode, response.body).toBe(status);
    if (status === 400) expect(response.headers['content-type']).toContain('application/problem+json');
  });
}

/** Registers the world's hooks in the calling test file and answers the world of the current test. */
export function useInvitationsWorld(): InvitationsWorld {
  let smtp: SmtpSink | undefined;
  let server: TestServer | undefined;
  let clock: ManualClock | undefined;
  let a: TenantFixture | undefined;

  beforeAll(async () => {
    smtp = await startSmtpSink();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  beforeEach(async () => {
    const sink = present(smtp);
    sink.received.length = 0;
    sink.failing(false);
    clock = new ManualClock(new Date());
    server = await createTestServer({
      clock,
      serviceOptions: {
        tenancy: {
          mail: { kind: 'smtp', url: sink.url, from: 'vault@example.test' },
          acceptBaseUrl: ACCEPT_BASE,
        },
      },
    });
    a = await createTenantFixture(server.services, 'Tenant A');
  });
  afterEach(async () => {
    await server?.dispose();
    server = clock = a = undefined;
  });

  const world: InvitationsWorld = {
    get smtp() {
      return present(smtp);
    },
    get server() {
      return present(server);
    },
    get clock() {
      return present(clock);
    },
    get a() {
      return present(a);
    },
    invite: (email, key = world.a.admin.key) =>
      world.server.app.inject({
        method: 'POST',
        url: '/tenants/self/invitations',
        headers: withKey(key),
        payload: { email },
      }),
    accept: (payload) => world.server.app.inject({ method: 'POST', url: '/invitations/accept', payload }),
  };
  return world;
}

/** The world's parts exist only while a test (its hooks) runs. */
function present<T>(part: T | undefined): T {
  if (part === undefined) throw new Error('the invitations world exists only inside a test');
  return part;
}

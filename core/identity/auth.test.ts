import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { FAST_KDF } from '../test-support/temp-vault.ts';
import { codeOf, fieldErrorsOf, openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { createServices, outboxTenancyOptions } from '../services.ts';
import { DEFAULT_SESSION_TTL_MS } from './sessions.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';

async function messageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isVaultError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'ok';
}

describe('sign-in and sessions', () => {
  let f: ServicesFixture;
  let tenantId: string;
  const email = 'owner@example.com';
  const password = 'correct horse battery';

  beforeEach(async () => {
    f = await openServicesFixture();
    ({ tenantId } = await seedTenant(f.services, 'Acme', email, password));
  });
  afterEach(() => f.close());

  it('signs in, resolves the session to a member principal, and stores only a hash of the token', async () => {
    const session = await f.services.auth.signIn(' OWNER@example.com ', password, '127.0.0.1');
    expect(session.token).toMatch(/^svcs_[0-9A-Za-z]{43}$/);
    expect(session.expires_at).toBe(new Date(f.clock.now().getTime() + DEFAULT_SESSION_TTL_MS).toISOString());
    const plain = await f.services.auth.authenticateSession(session.token, undefined);
    expect(plain).toMatchObject({ userId: session.user_id, principal: null });
    const scoped = await f.services.auth.authenticateSession(session.token, tenantId);
    expect(scoped.principal).toEqual({
      kind: 'user',
      tenantId,
      userId: session.user_id,
      sessionId: scoped.sessionId,
      role: 'OWNER',
    });
    const rows = await f.vault.db.selectFrom('sessions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(session.token.slice(5));
  });

  it('a tenant the user is not in, or that does not exist, is FORBIDDEN alike', async () => {
    const other = await seedTenant(f.services, 'Other');
    const { token } = await f.services.auth.signIn(email, password, '127.0.0.1');
    expect(await messageOf(f.services.auth.authenticateSession(token, other.tenantId))).toBe(
      await messageOf(f.services.auth.authenticateSession(token, '00000000-0000-4000-8000-000000000000')),
    );
    expect(await codeOf(f.services.auth.authenticateSession(token, other.tenantId))).toBe('FORBIDDEN');
  });

  it('every sign-in failure is the same UNAUTHENTICATED', async () => {
    await f.services.users.create({ email: 'nopass@example.com' });
    const failures = await Promise.all([
      messageOf(f.services.auth.signIn(email, 'wrong password', '10.0.0.1')),
      messageOf(f.services.auth.signIn('nobody@example.com', password, '10.0.0.2')),
      messageOf(f.services.auth.signIn('nopass@example.com', password, '10.0.0.3')),
      messageOf(f.services.auth.signIn('not an e-mail', password, '10.0.0.4')),
      messageOf(f.services.auth.signIn(email, 'x'.repeat(5000), '10.0.0.5')),
    ]);
    expect(new Set(failures)).toEqual(new Set(['UNAUTHENTICATED: The e-mail or password is not correct.']));
  });

  it('throttles per account with growing waits, whatever the address', async () => {
    for (let i = 0; i < 5; i++) {
      expect(await codeOf(f.services.auth.signIn(email, `guess number ${i}`, `203.0.113.${i}`))).toBe(
        'UNAUTHENTICATED',
      );
    }
    // Changing address does not help: the account waits 1 s, then 2 s, …
    for (const wait of [1, 2, 4]) {
      let refused: unknown;
      await f.services.auth.signIn(email, password, '198.51.100.7').catch((e: unknown) => (refused = e));
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).retryAfterSeconds).toBe(wait);
      f.clock.advance(wait * 1000);
      expect(await codeOf(f.services.auth.signIn(email, 'still guessing', '203.0.113.99'))).toBe(
        'UNAUTHENTICATED',
      );
    }
  });

  it('one caller on 127.0.0.1 failing many accounts never locks out the others on 127.0.0.1', async () => {
    for (let i = 0; i < 100; i++)
      await codeOf(f.services.auth.signIn(`victim${i}@example.com`, 'wrong password', '127.0.0.1'));
    for (let i = 0; i < 4; i++) await codeOf(f.services.auth.signIn(email, 'typo', '127.0.0.1'));
    expect((await f.services.auth.signIn(email, password, '127.0.0.1')).user_id).toBeTruthy();
    // Successes are never counted: signing in many times in a row stays allowed.
    for (let i = 0; i < 10; i++) await f.services.auth.signIn(email, password, '127.0.0.1');
  });

  it('expired sessions are refused and removed', async () => {
    const { token } = await f.services.auth.signIn(email, password, '127.0.0.1');
    f.clock.advance(DEFAULT_SESSION_TTL_MS - 1);
    await f.services.auth.authenticateSession(token, tenantId);
    f.clock.advance(1);
    expect(await codeOf(f.services.auth.authenticateSession(token, tenantId))).toBe('UNAUTHENTICATED');
    expect(await f.vault.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
  });

  it('honours a configured session lifetime', async () => {
    const services = createServices(f.vault, {
      passwordKdf: FAST_KDF,
      sessionTtlMs: 60_000,
      tenancy: outboxTenancyOptions(f.tmp.dir),
    });
    const { token, expires_at } = await services.auth.signIn(email, password, '127.0.0.1');
    expect(expires_at).toBe(new Date(f.clock.now().getTime() + 60_000).toISOString());
    f.clock.advance(60_000);
    expect(await codeOf(services.auth.authenticateSession(token, undefined))).toBe('UNAUTHENTICATED');
  });

  it('sign-out revokes the token (idempotently); unknown and malformed tokens are UNAUTHENTICATED', async () => {
    const a = await f.services.auth.signIn(email, password, '127.0.0.1');
    const b = await f.services.auth.signIn(email, password, '127.0.0.1');
    await f.services.auth.signOut(a.token);
    await f.services.auth.signOut(a.token);
    await f.services.auth.signOut('garbage');
    expect(await codeOf(f.services.auth.authenticateSession(a.token, undefined))).toBe('UNAUTHENTICATED');
    expect(await codeOf(f.services.auth.authenticateSession(b.token, undefined))).toBe('ok');
    expect(await codeOf(f.services.auth.authenticateSession(`svcs_${'A'.repeat(43)}`, undefined))).toBe(
      'UNAUTHENTICATED',
    );
    expect(await codeOf(f.services.auth.authenticateSession('', undefined))).toBe('UNAUTHENTICATED');
  });

  it('a new password signs the user out everywhere; the old one stops working', async () => {
    const { token, user_id } = await f.services.auth.signIn(email, password, '127.0.0.1');
    expect(Object.keys(await fieldErrorsOf(f.services.users.setPassword(user_id, 'short')))).toEqual([
      'password',
    ]);
    expect(await codeOf(f.services.users.setPassword('missing', 'long enough'))).toBe('NOT_FOUND');
    await f.services.users.setPassword(user_id, 'a brand new password');
    expect(await codeOf(f.services.auth.authenticateSession(token, undefined))).toBe('UNAUTHENTICATED');
    expect(await codeOf(f.services.auth.signIn(email, password, '127.0.0.1'))).toBe('UNAUTHENTICATED');
    expect(await codeOf(f.services.auth.signIn(email, 'a brand new password', '127.0.0.1'))).toBe('ok');
  });

  it('re-hashes a password made with other limits at the next sign-in', async () => {
    const stronger = { opsLimit: FAST_KDF.opsLimit + 1, memLimit: FAST_KDF.memLimit };
    const services = createServices(f.vault, {
      passwordKdf: stronger,
      tenancy: outboxTenancyOptions(f.tmp.dir),
    });
    const before = await f.vault.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    await services.auth.signIn(email, password, '127.0.0.1');
    const after = await f.vault.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(before.password_hash).toContain('t=1');
    expect(after.password_hash).toContain('t=2');
    expect(await codeOf(services.auth.signIn(email, password, '127.0.0.1'))).toBe('ok');
  });
});

describe('users', () => {
  let f: ServicesFixture;
  beforeEach(async () => {
    f = await openServicesFixture();
  });
  afterEach(() => f.close());

  it('lower-cases and trims e-mails; a duplicate is a CONFLICT', async () => {
    const user = await f.services.users.create({
      email: '  Ada@Example.ORG ',
      first_name: ' Ada ',
      last_name: '',
    });
    expect(user).toMatchObject({ email: 'ada@example.org', first_name: 'Ada', last_name: null });
    expect(await f.services.users.findByEmail('ADA@example.org')).toEqual(user);
    expect(await f.services.users.get(user.id)).toEqual(user);
    expect(await f.services.users.get('missing')).toBeNull();
    expect(await codeOf(f.services.users.create({ email: 'ada@EXAMPLE.org' }))).toBe('CONFLICT');
  });

  it.each([
    ['plain', 'a@example.com', true],
    ['plus and dots', 'first.last+tag@sub.example.co.uk', true],
    ['local machine', 'admin@localhost', true],
    ['no at', 'example.com', false],
    ['two ats', 'a@b@example.com', false],
    ['leading dot', '.a@example.com', false],
    ['double dot', 'a..b@example.com', false],
    ['space', 'a b@example.com', false],
    ['domain hyphen edge', 'a@-example.com', false],
    ['empty domain label', 'a@example..com', false],
    ['local part over 64', `${'a'.repeat(65)}@example.com`, false],
    ['quoted local part', '"a b"@example.com', false],
  ])('e-mail %s (%s) valid=%s', async (_name, email, valid) => {
    expect(await codeOf(f.services.users.create({ email }))).toBe(valid ? 'ok' : 'VALIDATION_FAILED');
  });

  it('passwords must have 8 to 1024 characters (code points)', async () => {
    expect(await codeOf(f.services.users.create({ email: 'a@x.io', password: '1234567' }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(f.services.users.create({ email: 'b@x.io', password: 'x'.repeat(1025) }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(f.services.users.create({ email: 'c@x.io', password: '😀😁😂🤣😃😄😅😆' }))).toBe(
      'ok',
    );
    expect(
      await codeOf(f.services.users.create({ email: 'd@x.io', password: 'abcdef'.repeat(170) + 'abcd' })),
    ).toBe('ok');
    await f.services.auth.signIn('c@x.io', '😀😁😂🤣😃😄😅😆', '127.0.0.1');
    const stored = await f.vault.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', 'c@x.io')
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('refuses common passwords (ignoring case and trailing digits) and too few different characters', async () => {
    for (const weak of [
      'password',
      'Sunshine2024!',
      'iloveyou123',
      'qwertyuiop',
      'aaaaaaaaaaaa',
      'abababab',
    ]) {
      const errors = await fieldErrorsOf(f.services.users.create({ email: 'weak@x.io', password: weak }));
      expect(errors.password, weak).toHaveLength(1);
    }
    const user = await f.services.users.create({ email: 'set@x.io' });
    expect(await codeOf(f.services.users.setPassword(user.id, 'baseball1'))).toBe('VALIDATION_FAILED');
    expect(await codeOf(f.services.users.create({ email: 'ok@x.io', password: 'tulip rocket 42' }))).toBe(
      'ok',
    );
  });
});

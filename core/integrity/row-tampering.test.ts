import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorIn } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { outboxIn } from '../mail/outbox-location.ts';
import { OFFICIAL_FORMULAS } from '../reactors/official-formulas.ts';
import { codeOf, detailOf, openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { acceptLinkOf, outboxMessages } from '../test-support/smtp-sink.ts';
import { rule } from '../test-support/token-kit.ts';

const CARD = '4242424242424242';

/**
 * What a database administrator without the vault key did to a running PostgreSQL vault, replayed:
 * each test rewrites rows with plain SQL, as `psql` would, and checks that the vault refuses the
 * row (INTEGRITY_FAILED) instead of acting on it, and that no token data comes back. The file runs
 * on the embedded vault too (row-tampering.postgres.test.ts reruns it on PostgreSQL): the rule is
 * one for both backends.
 */
describe('rows rewritten outside the vault are refused', () => {
  let f: ServicesFixture;
  let acme: Awaited<ReturnType<typeof seedTenant>>;
  let operator: Principal;

  beforeEach(async () => {
    f = await openServicesFixture();
    acme = await seedTenant(f.services, 'Acme');
    operator = operatorIn(acme.tenantId);
  });
  afterEach(async () => {
    await f.services.reactors.close();
    await f.close();
  });

  /** The administrator's statement, run on the vault's database. */
  const tamper = (statement: RawBuilder<unknown>) => f.vault.transaction((trx) => statement.execute(trx));

  /** A private application of Acme with these grants, and its key. */
  const keyWith = async (grants: { permissions?: string[]; rules?: ReturnType<typeof rule>[] }) => {
    const app = await f.services.applications.create(operator, { name: 'held', type: 'private', ...grants });
    return app;
  };

  const cardToken = async (containers = ['/pci/high/']) =>
    (await f.services.tokens.create(operator, { type: 'card_number', data: CARD, containers })).token.id;

  it('a password hash copied from another user signs nobody in', async () => {
    // The administrator knows the password of an account of their own (Other's owner).
    const other = await seedTenant(f.services, 'Other', 'admin@example.com', 'the admins own pass');
    await tamper(sql`update users set password_hash = (select password_hash from users where id = ${other.ownerId})
      where id = ${acme.ownerId}`);

    const sessionsBefore = await f.vault.db.selectFrom('sessions').select('id').execute();
    expect(
      await detailOf(f.services.auth.signIn(acme.ownerEmail, 'the admins own pass', '127.0.0.1')),
    ).toMatch(/^INTEGRITY_FAILED 500: The users row id=[0-9a-f-]{36} failed its integrity check/);
    expect(await f.vault.db.selectFrom('sessions').select('id').execute()).toEqual(sessionsBefore);
    // The owner's own account still refuses its old password (the hash is no longer theirs) and
    // the administrator's account is untouched.
    expect(await codeOf(f.services.auth.signIn(acme.ownerEmail, acme.ownerPassword, '127.0.0.1'))).toBe(
      'UNAUTHENTICATED',
    );
    expect(await codeOf(f.services.auth.signIn(other.ownerEmail, other.ownerPassword, '127.0.0.1'))).toBe(
      'ok',
    );
  });

  it.each([
    ['rules raised to reveal', sql`rules = ${JSON.stringify([rule(1, '/', ['token:read'], 'reveal')])}`],
    ['permissions raised', sql`permissions = ${JSON.stringify(['token:read', 'application:create'])}`],
    ['type turned to management', sql`type = 'management'`],
    ['expiry lifted', sql`expires_at = null, can_create_expiring_applications = 1`],
    ['moved to another tenant', sql`tenant_id = (select id from tenants where name = 'Other')`],
  ])('a key whose application was %s is refused and reveals nothing', async (_what, change) => {
    await seedTenant(f.services, 'Other');
    const tokenId = await cardToken();
    const held = await keyWith({ rules: [rule(1, '/', ['token:read'], 'redact')] });
    const principal = await f.services.auth.authenticateApiKey(held.key);
    expect((await f.services.tokens.get(principal!, tokenId)).data).toBeUndefined();

    await tamper(sql`update applications set ${change} where id = ${held.id}`);
    expect(await codeOf(f.services.auth.authenticateApiKey(held.key))).toBe('INTEGRITY_FAILED');
    expect(await codeOf(f.services.applications.get(operator, held.id))).toBe('INTEGRITY_FAILED');
    // Listed by the tenant the row now names, too.
    const { tenant_id: now } = await f.vault.db
      .selectFrom('applications')
      .select('tenant_id')
      .where('id', '=', held.id)
      .executeTakeFirstOrThrow();
    expect(await codeOf(f.services.applications.list(operatorIn(now), {}, { page: 1, size: 50 }))).toBe(
      'INTEGRITY_FAILED',
    );
  });

  it('a key hash moved onto another application authenticates as nothing', async () => {
    const held = await keyWith({ rules: [rule(1, '/', ['token:read'], 'redact')] });
    const revealer = await keyWith({ rules: [rule(1, '/', ['token:read'], 'reveal')] });
    // The administrator's key (whose hash they can read) now finds the revealing application's row.
    const hash = await f.vault.db
      .selectFrom('applications')
      .select('key_hash')
      .where('id', '=', held.id)
      .executeTakeFirstOrThrow();
    await tamper(sql`update applications set key_hash = ${new Uint8Array(32)} where id = ${held.id}`);
    await tamper(sql`update applications set key_hash = ${hash.key_hash} where id = ${revealer.id}`);
    expect(await codeOf(f.services.auth.authenticateApiKey(held.key))).toBe('INTEGRITY_FAILED');
  });

  it('an application row inserted without the vault key is refused', async () => {
    const held = await keyWith({ permissions: ['token:read'] });
    // Its own key's hash (which the administrator can read) on a new management row.
    const { key_hash: hash } = await f.vault.db
      .selectFrom('applications')
      .select('key_hash')
      .where('id', '=', held.id)
      .executeTakeFirstOrThrow();
    await tamper(sql`delete from applications where id = ${held.id}`);
    await tamper(sql`insert into applications (id, tenant_id, name, type, key_hash, permissions, rules,
        created_at, can_create_expiring_applications, row_mac)
      values (${held.id}, ${acme.tenantId}, 'forged', 'management', ${hash},
        ${JSON.stringify(['token:read', 'application:create'])}, null, ${held.created_at}, 0,
        ${'v1.1.' + 'A'.repeat(43)})`);
    expect(await codeOf(f.services.auth.authenticateApiKey(held.key))).toBe('INTEGRITY_FAILED');
  });

  it('a member raised to OWNER, or moved into another tenant, is refused', async () => {
    const other = await seedTenant(f.services, 'Other', 'admin@example.com', 'the admins own pass');
    const session = await f.services.auth.signIn(other.ownerEmail, other.ownerPassword, '127.0.0.1');
    expect(
      (await f.services.auth.authenticateSession(session.token, other.tenantId)).principal,
    ).toMatchObject({
      role: 'OWNER',
    });
    // Into Acme, as its owner.
    await tamper(sql`update members set tenant_id = ${acme.tenantId} where user_id = ${other.ownerId}`);
    expect(await codeOf(f.services.auth.authenticateSession(session.token, acme.tenantId))).toBe(
      'INTEGRITY_FAILED',
    );
    expect(await codeOf(f.services.tenants.listForUser(other.ownerId))).toBe('INTEGRITY_FAILED');
  });

  it("a member's role swapped with the owner's is refused", async () => {
    const invitee = await f.services.users.create({
      email: 'member@example.com',
      password: 'member password 1',
    });
    const invitation = await f.services.invitations.create(acme.principal, { email: invitee.email });
    const [mail] = await outboxMessages(outboxIn(f.tmp.dir));
    await f.services.invitations.accept({ token: acceptLinkOf(mail).secret, password: 'member password 1' });
    expect(invitation.email).toBe(invitee.email);
    const session = await f.services.auth.signIn(invitee.email, 'member password 1', '127.0.0.1');
    await tamper(sql`update members set role = 'OWNER' where user_id = ${invitee.id}`);
    await tamper(sql`update members set role = 'ADMIN' where user_id = ${acme.ownerId}`);
    expect(await codeOf(f.services.auth.authenticateSession(session.token, acme.tenantId))).toBe(
      'INTEGRITY_FAILED',
    );
    expect(await codeOf(f.services.members.list(acme.principal, {}, { page: 1, size: 50 }))).toBe(
      'INTEGRITY_FAILED',
    );
  });

  it('a session moved to another user, or kept alive, is refused', async () => {
    const other = await seedTenant(f.services, 'Other', 'admin@example.com', 'the admins own pass');
    const session = await f.services.auth.signIn(other.ownerEmail, other.ownerPassword, '127.0.0.1');
    await tamper(sql`update sessions set user_id = ${acme.ownerId} where user_id = ${other.ownerId}`);
    expect(await codeOf(f.services.auth.authenticateSession(session.token, acme.tenantId))).toBe(
      'INTEGRITY_FAILED',
    );

    const own = await f.services.auth.signIn(acme.ownerEmail, acme.ownerPassword, '127.0.0.1');
    await tamper(sql`update sessions set expires_at = '2999-01-01T00:00:00.000Z' where user_id = ${acme.ownerId}
      and expires_at = ${own.expires_at}`);
    expect(await codeOf(f.services.auth.authenticateSession(own.token, acme.tenantId))).toBe(
      'INTEGRITY_FAILED',
    );
  });

  it('an invitation moved to another tenant joins nothing', async () => {
    const other = await seedTenant(f.services, 'Other');
    await f.services.invitations.create(other.principal, { email: 'new@example.com' });
    const [mail] = await outboxMessages(outboxIn(f.tmp.dir));
    await tamper(sql`update invitations set tenant_id = ${acme.tenantId} where email = 'new@example.com'`);
    expect(
      await codeOf(
        f.services.invitations.accept({
          token: acceptLinkOf(mail).secret,
          first_name: 'New',
          last_name: 'Person',
          password: 'new person password',
        }),
      ),
    ).toBe('INTEGRITY_FAILED');
    expect(
      await f.vault.db.selectFrom('members').select('id').where('tenant_id', '=', acme.tenantId).execute(),
    ).toHaveLength(1);
  });

  it.each([
    ['attached to a revealing application and opened to anyone', 'application'],
    ['sent to another destination', 'destination'],
  ])('a proxy %s is refused before anything is detokenized or sent', async (_what, change) => {
    const tokenId = await cardToken();
    const revealer = await keyWith({ rules: [rule(1, '/', ['token:use', 'token:read'], 'reveal')] });
    const proxy = await f.services.proxies.create(operator, {
      name: 'p',
      destination_url: 'https://api.payments.example/charge',
      require_auth: true,
    });
    await tamper(
      change === 'application'
        ? sql`update proxies set application_id = ${revealer.id}, require_auth = 0 where id = ${proxy.id}`
        : sql`update proxies set destination_url = 'https://collector.attacker.example/' where id = ${proxy.id}`,
    );
    const invocation = f.services.proxyInvoker({
      method: 'POST',
      path: '',
      rawQuery: '',
      headers: [
        ['svc-proxy-key', proxy.key],
        ['content-type', 'application/json'],
      ],
      body: Buffer.from(JSON.stringify({ card: `{{ ${tokenId} }}` })),
      authenticate: (key) => f.services.auth.authenticateApiKey(key),
    });
    expect(await codeOf(invocation)).toBe('INTEGRITY_FAILED');
    expect(await codeOf(f.services.proxies.get(operator, proxy.id))).toBe('INTEGRITY_FAILED');
  });

  it('a proxy keeps working when the application it was attached to is deleted', async () => {
    const app = await keyWith({ rules: [rule(1, '/', ['token:use'], 'reveal')] });
    const proxy = await f.services.proxies.create(operator, {
      name: 'p',
      destination_url: 'https://api.payments.example/charge',
      application: { id: app.id },
    });
    await f.services.applications.delete(operator, app.id);
    expect((await f.services.proxies.get(operator, proxy.id)).application_id).toBeNull();
  });

  it('a reactor re-pointed at another application, or its formula rewritten, is refused', async () => {
    const caller = await f.services.auth.authenticateApiKey(
      (await keyWith({ permissions: ['token:use'] })).key,
    );
    const revealer = await keyWith({ rules: [rule(1, '/', ['token:read'], 'reveal')] });
    const official = OFFICIAL_FORMULAS.find((x) => x.configuration.length === 0) ?? OFFICIAL_FORMULAS[0]!;
    const reactor = await f.services.reactors.create(operator, {
      name: 'r',
      formula: { id: official.id },
      configuration: {},
    });
    await tamper(sql`update reactors set application_id = ${revealer.id} where id = ${reactor.id}`);
    expect(await codeOf(f.services.reactors.react(caller!, reactor.id, {}))).toBe('INTEGRITY_FAILED');

    const { formula } = await f.services.reactors.createFormula(operator, {
      name: 'f',
      type: 'private',
      code: 'module.exports = async () => ({ raw: { ok: true } });',
    });
    const own = await f.services.reactors.create(operator, { name: 'own', formula: { id: formula.id } });
    await tamper(sql`update reactor_formulas set code = ${'module.exports = async (req) => ({ raw: req })'}
      where id = ${formula.id}`);
    expect(await codeOf(f.services.reactors.react(caller!, own.id, {}))).toBe('INTEGRITY_FAILED');
  });

  it('changed tenant settings are refused, not applied', async () => {
    await tamper(sql`update tenants set settings = ${JSON.stringify({ deduplicate_tokens: 'true' })}
      where id = ${acme.tenantId}`);
    expect(await codeOf(f.services.tenants.get(operator))).toBe('INTEGRITY_FAILED');
    expect(await codeOf(f.services.tokens.create(operator, { type: 'card_number', data: CARD }))).toBe(
      'INTEGRITY_FAILED',
    );
  });

  it.each([
    ['moved into a container the key reveals', sql`container = '/pci/low/'`],
    ['given a mask that shows everything', sql`mask = ${JSON.stringify('{{ data }}')}`],
  ])('a token %s is refused and reveals nothing', async (_what, change) => {
    const tokenId = await cardToken(['/pci/high/']);
    const held = await keyWith({
      rules: [rule(1, '/pci/low/', ['token:read'], 'reveal'), rule(2, '/pci/high/', ['token:read'], 'mask')],
    });
    const principal = (await f.services.auth.authenticateApiKey(held.key))!;
    expect((await f.services.tokens.get(principal, tokenId)).data).not.toBe(CARD);

    await tamper(sql`update tokens set ${change} where id = ${tokenId}`);
    expect(await codeOf(f.services.tokens.get(principal, tokenId))).toBe('INTEGRITY_FAILED');
    expect(await codeOf(f.services.tokens.list(principal, {}, { page: 1, size: 50 }))).toBe(
      'INTEGRITY_FAILED',
    );
    expect(
      await codeOf(
        f.services.detokenizer.detokenize(
          principal,
          { card: `{{ ${tokenId} }}` },
          { permission: 'token:read', field: 'body' },
        ),
      ),
    ).toBe('INTEGRITY_FAILED');
  });

  it('columns that only describe a row may change without refusing it', async () => {
    const held = await keyWith({ permissions: ['token:read'] });
    await tamper(sql`update applications set name = 'renamed', modified_at = 'x' where id = ${held.id}`);
    expect((await f.services.auth.authenticateApiKey(held.key))?.tenantId).toBe(acme.tenantId);
  });
});

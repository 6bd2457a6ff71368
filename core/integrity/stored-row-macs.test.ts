import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { operatorIn } from '../access/principal.ts';
import { outboxIn } from '../mail/outbox-location.ts';
import { OFFICIAL_FORMULAS } from '../reactors/official-formulas.ts';
import { createServices, outboxTenancyOptions } from '../services.ts';
import type { Services } from '../services-contract.ts';
import { makeTempSchema, postgresOrSkipNotice } from '../test-support/postgres.ts';
import { codeOf, openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { acceptLinkOf, outboxMessages } from '../test-support/smtp-sink.ts';
import { FAST_KDF, createTempVault } from '../test-support/temp-vault.ts';
import { rule } from '../test-support/token-kit.ts';
import { unsyncedFs } from '../test-support/unsynced-fs.ts';
import { openVault } from '../vault/index.ts';
import { createPostgresVault, openPostgresVault } from '../backends/postgres/postgres-vault.ts';
import { open, seal } from '../crypto/aead.ts';
import type { KdfHeader } from '../crypto/root-key.ts';
import { loadSodium } from '../crypto/sodium.ts';
import { keyringAad } from '../backends/embedded/vault-file.ts';
import { importFromPostgres } from '../vault/import-from-postgres.ts';
import { rotateKeys } from '../vault/rotation.ts';
import type { VaultHandle } from '../vault/types.ts';
import { AUTHENTICATED_TABLES } from './row-authenticator.ts';
import { countRowMacsOutsideTerm } from './stored-row-macs.ts';

const CARD = '4242424242424242';

/** A row of every authenticated table, written through the services; what a test reads back. */
async function fill(services: Services) {
  const acme = await seedTenant(services, 'Acme');
  const operator = operatorIn(acme.tenantId);
  const reader = await services.applications.create(operator, {
    name: 'reader',
    type: 'private',
    rules: [rule(1, '/', ['token:read'], 'reveal')],
  });
  const token = (await services.tokens.create(operator, { type: 'card_number', data: CARD })).token.id;
  await services.auth.signIn(acme.ownerEmail, acme.ownerPassword, '127.0.0.1');
  await services.invitations.create(acme.principal, { email: 'new@example.com' });
  const proxy = await services.proxies.create(operator, {
    name: 'p',
    destination_url: 'https://api.payments.example/',
    application: { id: reader.id },
  });
  const { formula } = await services.reactors.createFormula(operator, {
    name: 'f',
    type: 'private',
    code: 'module.exports = async () => ({ raw: { ok: true } });',
  });
  const official = OFFICIAL_FORMULAS.find((x) => x.configuration.length === 0) ?? OFFICIAL_FORMULAS[0]!;
  const reactor = await services.reactors.create(operator, { name: 'r', formula: { id: official.id } });
  return { acme, operator, reader, token, proxy, formula, reactor };
}

type World = Awaited<ReturnType<typeof fill>>;

/** The vault as a version before row MACs left it: no MAC columns, migration 11 not recorded. */
async function beforeRowMacs(vault: VaultHandle): Promise<void> {
  await vault.transaction(async (trx) => {
    for (const table of AUTHENTICATED_TABLES) {
      await sql`alter table ${sql.table(table)} drop column row_mac`.execute(trx);
    }
    await trx.deleteFrom('schema_migrations').where('version', '=', 11).execute();
  });
}

/**
 * The keyring row as a version before row MACs stored it: the same keyring without the record
 * that its rows carry MACs (only the root key can write it, so the test uses the key).
 */
async function keyringBeforeRowMacs(vault: VaultHandle, rootKey: Uint8Array): Promise<void> {
  const sodium = await loadSodium();
  type KeyringRow = { vault_id: string; kdf: string; wrapped: Uint8Array };
  const row = await sql<KeyringRow>`select vault_id, kdf, wrapped from vault_keyring`.execute(vault.db);
  const { vault_id, kdf, wrapped } = row.rows[0]!;
  const aad = keyringAad(vault_id, JSON.parse(kdf) as KdfHeader);
  const data = JSON.parse(
    Buffer.from(open(sodium, rootKey, new Uint8Array(wrapped), aad)!).toString('utf8'),
  ) as {
    row_macs?: true;
  };
  expect(data.row_macs).toBe(true);
  delete data.row_macs;
  const older = seal(sodium, rootKey, Buffer.from(JSON.stringify(data), 'utf8'), aad);
  await vault.transaction((trx) => sql`update vault_keyring set wrapped = ${older}`.execute(trx));
}

/** Everything `fill` wrote works again through services over the reopened vault. */
async function expectCarriedOver(vault: VaultHandle, services: Services, world: World, outbox: string) {
  expect(await countRowMacsOutsideTerm(vault.db, vault.keyTerm)).toBe(0);
  const reader = await services.auth.authenticateApiKey(world.reader.key);
  expect((await services.tokens.get(reader!, world.token)).data).toBe(CARD);
  expect(
    await codeOf(services.auth.signIn(world.acme.ownerEmail, world.acme.ownerPassword, '127.0.0.1')),
  ).toBe('ok');
  expect((await services.proxies.get(world.operator, world.proxy.id)).application_id).toBe(world.reader.id);
  expect((await services.reactors.get(world.operator, world.reactor.id)).id).toBe(world.reactor.id);
  expect((await services.reactors.getFormula(world.operator, world.formula.id)).code).toBe(
    world.formula.code,
  );
  const [mail] = await outboxMessages(outbox);
  const { member } = await services.invitations.accept({
    token: acceptLinkOf(mail).secret,
    first_name: 'New',
    last_name: 'Person',
    password: 'new person password',
  });
  expect(member.tenant_id).toBe(world.acme.tenantId);
}

const postgres = await postgresOrSkipNotice('core/integrity/stored-row-macs.test.ts (its PostgreSQL tests)');

describe('MACs of rows written before they existed (migration 11)', () => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it('the embedded file: every row is vouched for as found when the vault is next opened with its key', async () => {
    const created = await createTempVault();
    cleanup.push(() => rm(created.dir, { recursive: true, force: true }));
    const first = createServices(created.vault, { passwordKdf: FAST_KDF });
    const world = await fill(first);
    await first.reactors.close();
    await beforeRowMacs(created.vault);
    // Changed before the migration: vouched for as found (what the docs say is not detected).
    await created.vault.transaction((trx) =>
      sql`update applications set permissions = '["token:create"]' where id = ${world.reader.id}`.execute(
        trx,
      ),
    );
    await created.vault.close();

    // Opening runs the migration; a second opening replays it from the journal.
    for (let i = 0; i < 2; i++) {
      const vault = await openVault({ path: created.vaultPath, key: created.key, fs: unsyncedFs });
      const services = createServices(vault, { passwordKdf: FAST_KDF });
      try {
        if (i === 1) {
          await expectCarriedOver(vault, services, world, outboxIn(created.dir));
          const reader = await services.auth.authenticateApiKey(world.reader.key);
          expect(reader?.kind === 'application' && reader.permissions).toEqual(['token:create']);
        } else expect(await countRowMacsOutsideTerm(vault.db, vault.keyTerm)).toBe(0);
      } finally {
        await services.reactors.close();
        await vault.close();
      }
    }
  });

  it.skipIf(!postgres)(
    'PostgreSQL: every row is vouched for by the first server that opens the database with the key',
    async () => {
      const schema = await makeTempSchema();
      cleanup.push(() => schema.drop());
      const outbox = await mkdtemp(path.join(tmpdir(), 'svc-row-macs-'));
      cleanup.push(() => rm(outbox, { recursive: true, force: true }));
      const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
      const tenancy = outboxTenancyOptions(outbox);
      const created = await createPostgresVault({ url: schema.url, key });
      const first = createServices(created, { passwordKdf: FAST_KDF, tenancy });
      const world = await fill(first);
      await first.reactors.close();
      await beforeRowMacs(created);
      await keyringBeforeRowMacs(created, key.key);
      await created.close();

      const vault = await openPostgresVault({ url: schema.url, key });
      const services = createServices(vault, { passwordKdf: FAST_KDF, tenancy });
      try {
        const nullable = await sql<{ n: number }>`select count(*)::int as n from information_schema.columns
          where table_schema = ${schema.schema} and column_name = 'row_mac' and is_nullable = 'YES'`.execute(
          vault.db,
        );
        expect(nullable.rows[0]?.n).toBe(0);
        await expectCarriedOver(vault, services, world, outboxIn(outbox));
        // The upgrade recorded the MACs in the keyring: removing them again is refused.
        await beforeRowMacs(vault);
      } finally {
        await services.reactors.close();
        await vault.close();
      }
      expect(await codeOf(openPostgresVault({ url: schema.url, key }))).toBe('INTEGRITY_FAILED');
    },
  );
});

describe.skipIf(!postgres)('row MACs that an administrator removes', () => {
  it('the next open refuses to vouch for the rows again, and changes nothing', async () => {
    const schema = await makeTempSchema();
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-row-macs-'));
    const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
    try {
      const vault = await createPostgresVault({ url: schema.url, key });
      const services = createServices(vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(dir) });
      const acme = await seedTenant(services, 'Acme');
      const held = await services.applications.create(operatorIn(acme.tenantId), {
        name: 'held',
        type: 'private',
        permissions: ['token:read'],
      });
      // Tamper, then drop every MAC and the record of their migration, hoping the next server
      // start vouches for the rows as it did at the upgrade.
      await beforeRowMacs(vault);
      await vault.transaction((trx) =>
        sql`update applications set type = 'management' where id = ${held.id}`.execute(trx),
      );
      await vault.close();

      await expect(openPostgresVault({ url: schema.url, key })).rejects.toMatchObject({
        code: 'INTEGRITY_FAILED',
        message: expect.stringMatching(/the MAC column or its migration's record was removed/),
      });
      // Nothing was vouched for by the refused open: the next one is refused the same way.
      expect(await codeOf(openPostgresVault({ url: schema.url, key }))).toBe('INTEGRITY_FAILED');
    } finally {
      await schema.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!postgres)('row MACs of a copied vault', () => {
  it('an import from PostgreSQL refuses a row changed in the database, and writes no vault file', async () => {
    const schema = await makeTempSchema();
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-row-macs-'));
    const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
    const vault = await createPostgresVault({ url: schema.url, key });
    try {
      const services = createServices(vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(dir) });
      const acme = await seedTenant(services, 'Acme');
      await vault.transaction((trx) =>
        sql`update applications set type = 'private' where tenant_id = ${acme.tenantId}`.execute(trx),
      );
      const destination = path.join(dir, 'vault.svc');
      const refused = importFromPostgres({ url: schema.url, path: destination, key, replace: false });
      await expect(refused).rejects.toMatchObject({
        code: 'INTEGRITY_FAILED',
        message: expect.stringMatching(
          /^Copying refused a row: The applications row id=[0-9a-f-]{36} failed its integrity check .*; no vault file was written\.$/,
        ),
      });
      expect(await readdir(dir)).not.toContain('vault.svc');
    } finally {
      await vault.close();
      await schema.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('row MACs across a key rotation', () => {
  let f: ServicesFixture;
  afterEach(async () => {
    await f.services.reactors.close();
    await f.close();
  });

  it('moves every MAC to the new term, and refuses to vouch again for a row changed outside the vault', async () => {
    f = await openServicesFixture();
    const world = await fill(f.services);
    const result = await rotateKeys(f.vault, f.tmp.key);
    expect(result.retired).toEqual([1]);
    expect(await countRowMacsOutsideTerm(f.vault.db, 2)).toBe(0);
    const reader = await f.services.auth.authenticateApiKey(world.reader.key);
    expect((await f.services.tokens.get(reader!, world.token)).data).toBe(CARD);

    await f.vault.transaction((trx) =>
      sql`update applications set type = 'management' where id = ${world.reader.id}`.execute(trx),
    );
    expect(await codeOf(rotateKeys(f.vault, f.tmp.key))).toBe('INTEGRITY_FAILED');
    // Nothing was retired: the rows not yet moved still verify under the term they name.
    expect(f.vault.keyTerms).toEqual([2, 3]);
    expect(await codeOf(f.services.auth.authenticateApiKey(world.reader.key))).toBe('INTEGRITY_FAILED');
    expect(await codeOf(f.services.tenants.get(world.operator))).toBe('ok');
  });
});

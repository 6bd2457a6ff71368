import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAuditChains } from '../../audit/audit-log.ts';
import { tmpdir } from 'node:os';
import { createServices, outboxTenancyOptions } from '../../services.ts';
import { operatorIn } from '../../access/principal.ts';
import { makeTempSchema, postgresOrSkipNotice } from '../../test-support/postgres.ts';
import type { TempSchema } from '../../test-support/postgres.ts';
import { codeOf } from '../../test-support/services-fixture.ts';
import { FAST_KDF } from '../../test-support/temp-vault.ts';
import { appIn, ALL_TOKEN_PERMISSIONS } from '../../test-support/token-kit.ts';
import { sql } from 'kysely';
import { createPostgresPool } from './pool.ts';
import { readPostgresVaultStatus } from './postgres-status.ts';
import { createPostgresVault, openPostgresVault } from './postgres-vault.ts';
import { rekeyVault } from '../embedded/maintenance.ts';
import type { KeySource } from '../../crypto/root-key.ts';

const newKey = (): KeySource => ({ kind: 'key', key: new Uint8Array(randomBytes(32)) });

const available = await postgresOrSkipNotice('core/backends/postgres/postgres-vault.test.ts');

describe.skipIf(!available)('PostgreSQL vault', { timeout: 120_000 }, () => {
  let schema: TempSchema;
  beforeEach(async () => {
    schema = await makeTempSchema();
  });
  afterEach(() => schema.drop());

  it('is set up once, reopened with its key, and refuses a wrong key before anything changes', async () => {
    const key = newKey();
    const vault = await createPostgresVault({ url: schema.url, key });
    expect(vault.keyTerms).toEqual([1]);
    await vault.close();
    expect(await codeOf(createPostgresVault({ url: schema.url, key }))).toBe('VAULT_EXISTS');
    expect(await codeOf(openPostgresVault({ url: schema.url, key: newKey() }))).toBe('VAULT_WRONG_KEY');
    expect(
      await codeOf(openPostgresVault({ url: schema.url, key: { kind: 'passphrase', passphrase: 'x' } })),
    ).toBe('VAULT_WRONG_KEY');
    const again = await openPostgresVault({ url: schema.url, key });
    expect(again.id).toBe(vault.id);
    expect((await again.status()).format_version).toBeGreaterThan(0);
    await again.close();
  });

  it('an open puts back a shared SQL function that went missing', async () => {
    const key = newKey();
    await (await createPostgresVault({ url: schema.url, key })).close();
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const oids = async () =>
        (
          await client.query<{ f: string | null; i: string | null }>(
            `select to_regprocedure('json_extract(text,text)')::oid::text as f, to_regprocedure('instr(text,text)')::oid::text as i`,
          )
        ).rows[0];
      const before = await oids();
      await client.query('drop function instr(text, text)');
      const vault = await openPostgresVault({ url: schema.url, key });
      await vault.close();
      const after = await oids();
      expect(after?.i).not.toBeNull();
      expect(after?.f).toBe(before?.f);
      expect((await client.query<{ n: number }>(`select instr('abc', 'c') as n`)).rows[0]?.n).toBe(3);
    } finally {
      await client.end();
    }
  });

  it("runs on a caller's pool and leaves it open: after close, after a refused open, for the next vault", async () => {
    const key = newKey();
    const pool = createPostgresPool(schema.url, { max: 2 });
    let checkouts = 0;
    pool.on('acquire', () => checkouts++);
    try {
      const created = await createPostgresVault({ url: schema.url, key, connections: pool });
      const before = checkouts;
      await created.transaction((trx) => sql`select 1`.execute(trx));
      expect(checkouts).toBe(before + 1);
      await created.close();
      expect(await codeOf(openPostgresVault({ url: schema.url, key: newKey(), connections: pool }))).toBe(
        'VAULT_WRONG_KEY',
      );
      const opened = await openPostgresVault({ url: schema.url, key, connections: pool });
      expect(opened.id).toBe(created.id);
      await opened.close();
      // Closed twice over, the pool still answers.
      expect((await pool.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    } finally {
      await pool.end();
    }
  });
  it('says plainly when there is no vault, and answers 503 when the database is unreachable', async () => {
    expect(await codeOf(openPostgresVault({ url: schema.url, key: newKey() }))).toBe('VAULT_NOT_FOUND');
    const unreachable = 'postgres://postgres@127.0.0.1:1/test';
    expect(
      await codeOf(openPostgresVault({ url: unreachable, key: newKey(), pool: { connectTimeoutMs: 500 } })),
    ).toBe('SERVICE_UNAVAILABLE');
  });

  it('refuses writes outside a transaction and rolls back a failed one', async () => {
    const vault = await createPostgresVault({ url: schema.url, key: newKey() });
    try {
      expect(await codeOf(vault.db.insertInto('vault_meta').values({ key: 'a', value: 'b' }).execute())).toBe(
        'INTERNAL',
      );
      await expect(
        vault.transaction(async (trx) => {
          await trx.insertInto('vault_meta').values({ key: 'a', value: 'b' }).execute();
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await vault.db.selectFrom('vault_meta').selectAll().execute()).toEqual([]);
    } finally {
      await vault.close();
    }
  });

  it('adds and retires key terms with the root key; a wrong key changes nothing', async () => {
    const key = newKey();
    const vault = await createPostgresVault({ url: schema.url, key });
    try {
      expect(await codeOf(vault.addKeyTerm(newKey()))).toBe('VAULT_WRONG_KEY');
      expect(vault.keyTerms).toEqual([1]);
      expect(await vault.addKeyTerm(key)).toBe(2);
      expect(await vault.retireOldKeyTerms(key)).toEqual([1]);
      await vault.close();
      const reopened = await openPostgresVault({ url: schema.url, key });
      expect(reopened.keyTerms).toEqual([2]);
      await reopened.close();
    } finally {
      await vault.close();
    }
  });

  it('rekeys in the database: a wrong current key changes nothing, then only the new key opens it and the data reads the same', async () => {
    const key = newKey();
    const passphrase: KeySource = { kind: 'passphrase', passphrase: 'the new passphrase' };
    const vault = await createPostgresVault({ url: schema.url, key });
    // A server holding the vault while it is rekeyed: it keeps serving with the keyring it holds.
    const running = createServices(vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(tmpdir()) });
    try {
      const { tenant } = await running.tenants.create({ name: 'Acme', withApplication: false }, null);
      const app = operatorIn(tenant.id);
      const before = await running.tokens.create(app, { type: 'token', data: 'written before' });
      const rekey = (current: KeySource) =>
        rekeyVault({ path: '', databaseUrl: schema.url, key: current, newKey: passphrase, kdf: FAST_KDF });

      expect(await codeOf(rekey(newKey()))).toBe('VAULT_WRONG_KEY');
      expect((await readPostgresVaultStatus(schema.url))?.key_source).toBe('key');
      await (await openPostgresVault({ url: schema.url, key })).close();

      await rekey(key);
      expect((await readPostgresVaultStatus(schema.url))?.key_source).toBe('passphrase');
      expect(await codeOf(openPostgresVault({ url: schema.url, key }))).toBe('VAULT_WRONG_KEY');
      const after = await running.tokens.create(app, { type: 'token', data: 'written after' });
      // What needs the root key is refused with the old one, and works with the new one.
      expect(await codeOf(vault.addKeyTerm(key))).toBe('VAULT_WRONG_KEY');
      expect(await vault.addKeyTerm(passphrase)).toBe(2);

      const reopened = await openPostgresVault({ url: schema.url, key: passphrase });
      try {
        const services = createServices(reopened, {
          passwordKdf: FAST_KDF,
          tenancy: outboxTenancyOptions(tmpdir()),
        });
        expect((await services.tokens.get(app, before.token.id)).data).toBe('written before');
        expect((await services.tokens.get(app, after.token.id)).data).toBe('written after');
        expect(reopened.keyTerms).toEqual([1, 2]);
        expect((await verifyAuditChains(reopened.db, reopened)).ok).toBe(true);
      } finally {
        await reopened.close();
      }
    } finally {
      await vault.close();
    }
  });

  it('two vaults on one database under parallel writers: no duplicate ids or tokens, no forked chain', async () => {
    const key = newKey();
    const first = await createPostgresVault({ url: schema.url, key, pool: { max: 4 } });
    const second = await openPostgresVault({ url: schema.url, key, pool: { max: 4 } });
    try {
      // No mail is sent here; a database vault is told where it would go.
      const options = { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(tmpdir()) };
      const a = createServices(first, options);
      const b = createServices(second, options);
      const created = await a.tenants.create({ name: 'Acme', withApplication: false }, null);
      const tenantId = created.tenant.id;
      const app = appIn(tenantId, { permissions: ALL_TOKEN_PERMISSIONS });
      const operator = operatorIn(tenantId);
      const writers = [];
      for (let i = 0; i < 12; i++) {
        const services = i % 2 === 0 ? a : b;
        // Same data, deduplicated: every writer must get the one token.
        writers.push(
          services.tokens.create(app, {
            type: 'card_number',
            data: '4242424242424242',
            deduplicate_token: true,
          }),
        );
        // Distinct tokens and a tokenize batch, each appending to the one audit chain.
        writers.push(services.tokens.create(app, { type: 'token', data: `value ${i}` }));
        writers.push(services.tokens.tokenize(app, { a: { type: 'token', data: `batch ${i}` } }));
        writers.push(services.tenants.get(operator));
      }
      await Promise.all(writers);
      const cards = await first.db
        .selectFrom('tokens')
        .select('id')
        .where('type', '=', 'card_number')
        .execute();
      expect(cards).toHaveLength(1);
      const all = await first.db.selectFrom('tokens').select('id').execute();
      expect(all).toHaveLength(1 + 12 + 12);
      expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
      const keys = await first.db.selectFrom('tenant_keys').select(['purpose', 'term']).execute();
      expect(keys.length).toBe(new Set(keys.map((k) => `${k.purpose}:${k.term}`)).size);
      const report = await verifyAuditChains(second.db, second);
      expect(report.ok).toBe(true);
      expect(report.firstBreak).toBeNull();
      const seqs = await first.db
        .selectFrom('audit_logs')
        .select('seq')
        .where('tenant_id', '=', tenantId)
        .execute();
      expect(seqs.length).toBe(report.entries);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

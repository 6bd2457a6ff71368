import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices, outboxTenancyOptions } from '../services.ts';
import { makeTempSchema, postgresOrSkipNotice, type TempSchema } from '../test-support/postgres.ts';
import { openServicesFixture, seedTenant, type ServicesFixture } from '../test-support/services-fixture.ts';
import { FAST_KDF } from '../test-support/temp-vault.ts';
import { exportToPostgres } from './export-to-postgres.ts';
import { openPostgresVault } from '../backends/postgres/postgres-vault.ts';
import { expectTokensCarriedOver, fillTenantToCopy } from '../test-support/copied-tokens.ts';

const available = await postgresOrSkipNotice('core/vault/export-to-postgres.test.ts');

describe.skipIf(!available)('exporting an embedded vault to PostgreSQL', () => {
  let f: ServicesFixture;
  let schema: TempSchema;
  beforeEach(async () => {
    f = await openServicesFixture();
    schema = await makeTempSchema();
  });
  afterEach(async () => {
    await f.close();
    await schema.drop();
  });

  it('copies keys, rows and chains: the same key opens it, every token reads the same, counts equal, chains verify, new writes continue', async () => {
    const { principal, made, key } = await fillTenantToCopy(f.services);
    const parent = made[0]!;
    const before = await Promise.all(made.slice(3).map((t) => f.services.tokens.get(principal, t.id)));

    let lastProgress = 0;
    const report = await exportToPostgres({
      source: f.vault,
      sourcePath: f.tmp.vaultPath,
      key: f.tmp.key,
      url: schema.url,
      onProgress: (copied) => (lastProgress = copied),
    });
    expect(report.vaultId).toBe(f.vault.id);
    expect(report.chains.ok).toBe(true);
    expect(report.rows.tokens).toBe(29);
    expect(lastProgress).toBe(Object.values(report.rows).reduce((a, b) => a + b, 0));

    const copy = await openPostgresVault({ url: schema.url, key: f.tmp.key });
    try {
      expect(copy.id).toBe(f.vault.id);
      expect(copy.keyTerms).toEqual(f.vault.keyTerms);
      const services = createServices(copy, {
        passwordKdf: FAST_KDF,
        tenancy: outboxTenancyOptions(f.tmp.dir),
      });
      // The management key made on the file authenticates on the database (same lookup key).
      const there = await services.auth.authenticateApiKey(key);
      expect(there?.tenantId).toBe(principal.tenantId);
      await expectTokensCarriedOver(copy, services, principal, before, parent);
    } finally {
      await copy.close();
    }
  });

  it('refuses a database that already holds a vault', async () => {
    await seedTenant(f.services);
    const options = { source: f.vault, sourcePath: f.tmp.vaultPath, key: f.tmp.key, url: schema.url };
    await exportToPostgres(options);
    await expect(exportToPostgres(options)).rejects.toMatchObject({ code: 'VAULT_EXISTS' });
  });
});

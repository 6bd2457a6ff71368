import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorIn } from '../access/principal.ts';
import { createServices } from '../services.ts';
import { makeTempSchema, postgresOrSkipNotice, type TempSchema } from '../test-support/postgres.ts';
import { openServicesFixture, seedTenant, type ServicesFixture } from '../test-support/services-fixture.ts';
import { FAST_KDF, makeTempDir, snapshotFiles, type TempDir } from '../test-support/temp-vault.ts';
import { expectTokensCarriedOver, fillTenantToCopy } from '../test-support/copied-tokens.ts';
import { exportToPostgres } from './export-to-postgres.ts';
import { importFromPostgres } from './import-from-postgres.ts';
import { createVault, openVault } from './lifecycle.ts';
import { countCopiedRows } from './vault-copy.ts';

const available = await postgresOrSkipNotice('core/vault/import-from-postgres.test.ts');

describe.skipIf(!available)('importing a vault from PostgreSQL into a vault file', () => {
  let f: ServicesFixture;
  let schema: TempSchema;
  let out: TempDir;
  beforeEach(async () => {
    f = await openServicesFixture();
    schema = await makeTempSchema();
    out = await makeTempDir('svc-import-');
  });
  afterEach(async () => {
    await f.close();
    await schema.drop();
    await out.cleanup();
  });

  const fill = () => fillTenantToCopy(f.services);

  it('file → PostgreSQL → new file: same id, keys and key terms; every token reads the same; counts equal; chains verify; new writes continue', async () => {
    const { principal, made, key } = await fill();
    const before = await Promise.all(made.slice(3).map((t) => f.services.tokens.get(principal, t.id)));
    await exportToPostgres({ source: f.vault, sourcePath: f.tmp.vaultPath, key: f.tmp.key, url: schema.url });
    const sourceCounts = await countCopiedRows(f.vault.db, f.vault.audit);

    let lastProgress = 0;
    let lastTotal = -1;
    const report = await importFromPostgres({
      url: schema.url,
      path: out.vaultPath,
      key: f.tmp.key,
      replace: false,
      onProgress: (copied, total) => {
        lastProgress = copied;
        lastTotal = total;
      },
    });
    expect(report.vaultId).toBe(f.vault.id);
    expect(report.chains.ok).toBe(true);
    expect(report.rows).toEqual(sourceCounts);
    expect(lastProgress).toBe(lastTotal);
    // Only the vault's own files remain: the staging file is gone.
    expect((await readdir(out.dir)).filter((n) => n.includes('import'))).toEqual([]);

    const copy = await openVault({ path: out.vaultPath, key: f.tmp.key });
    try {
      expect(copy.id).toBe(f.vault.id);
      expect(copy.keyTerms).toEqual(f.vault.keyTerms);
      expect(await countCopiedRows(copy.db, copy.audit)).toEqual(sourceCounts);
      const services = createServices(copy, { passwordKdf: FAST_KDF });
      expect((await services.auth.authenticateApiKey(key))?.tenantId).toBe(principal.tenantId);
      await expectTokensCarriedOver(copy, services, principal, before, made[0]!);
    } finally {
      await copy.close();
    }
    // Written to disk: it opens again after the close.
    const reopened = await openVault({ path: out.vaultPath, key: f.tmp.key });
    await reopened.close();
  });

  it('refuses an existing vault file unless replacing is allowed, and then replaces it', async () => {
    await fill();
    await exportToPostgres({ source: f.vault, sourcePath: f.tmp.vaultPath, key: f.tmp.key, url: schema.url });
    const other = await makeTempDir('svc-import-other-');
    try {
      // The destination already holds a vault (another one, with the same key for the test's sake).
      const occupant = await createVault({ path: other.vaultPath, key: f.tmp.key });
      const occupantId = occupant.id;
      await occupant.close();
      const files = await snapshotFiles(other.dir);
      await expect(
        importFromPostgres({ url: schema.url, path: other.vaultPath, key: f.tmp.key, replace: false }),
      ).rejects.toMatchObject({ code: 'VAULT_EXISTS' });
      expect(await snapshotFiles(other.dir)).toEqual(files);

      const report = await importFromPostgres({
        url: schema.url,
        path: other.vaultPath,
        key: f.tmp.key,
        replace: true,
      });
      expect(report.vaultId).not.toBe(occupantId);
      const replaced = await openVault({ path: other.vaultPath, key: f.tmp.key });
      try {
        expect(replaced.id).toBe(f.vault.id);
      } finally {
        await replaced.close();
      }
    } finally {
      await other.cleanup();
    }
  });

  it("keeps a passphrase vault's KDF: the same passphrase opens the imported file, another does not", async () => {
    const passphrase = { kind: 'passphrase', passphrase: 'correct horse battery staple' } as const;
    const dir = await makeTempDir('svc-import-passphrase-');
    try {
      const file = await createVault({ path: dir.vaultPath, key: passphrase, kdf: FAST_KDF });
      const services = createServices(file, { passwordKdf: FAST_KDF });
      const { tenantId } = await seedTenant(services);
      const { token } = await services.tokens.create(operatorIn(tenantId), {
        type: 'token',
        data: 'kept',
      } as never);
      await exportToPostgres({ source: file, sourcePath: dir.vaultPath, key: passphrase, url: schema.url });
      await file.close();

      await importFromPostgres({ url: schema.url, path: out.vaultPath, key: passphrase, replace: false });
      await expect(
        openVault({ path: out.vaultPath, key: { kind: 'passphrase', passphrase: 'wrong' } }),
      ).rejects.toMatchObject({ code: 'VAULT_WRONG_KEY' });
      const copy = await openVault({ path: out.vaultPath, key: passphrase });
      try {
        const read = await createServices(copy, { passwordKdf: FAST_KDF }).tokens.get(
          operatorIn(tenantId),
          token.id,
        );
        expect(read.data).toBe('kept');
      } finally {
        await copy.close();
      }
    } finally {
      await dir.cleanup();
    }
  });

  it('refuses a wrong key before writing anything', async () => {
    await fill();
    await exportToPostgres({ source: f.vault, sourcePath: f.tmp.vaultPath, key: f.tmp.key, url: schema.url });
    const wrong = { kind: 'key', key: new Uint8Array(32).fill(7) } as const;
    await expect(
      importFromPostgres({ url: schema.url, path: out.vaultPath, key: wrong, replace: false }),
    ).rejects.toMatchObject({ code: 'VAULT_WRONG_KEY' });
    expect(await readdir(out.dir)).toEqual([]);
  });

  it('says so when the database holds no vault, and leaves no file', async () => {
    await expect(
      importFromPostgres({
        url: schema.url,
        path: join(out.dir, 'vault.svc'),
        key: f.tmp.key,
        replace: false,
      }),
    ).rejects.toMatchObject({ code: 'VAULT_NOT_FOUND' });
    expect(await readdir(out.dir)).toEqual([]);
  });
});

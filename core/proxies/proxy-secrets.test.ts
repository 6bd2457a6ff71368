import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { openServicesFixture } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { testBackend } from '../test-support/test-vault.ts';
import { decryptedVaultFiles, placesHolding } from '../test-support/vault-at-rest.ts';
import { rotateKeys } from '../vault/rotation.ts';
import { openVault } from '../vault/index.ts';
import type { ProxyService } from './contract.ts';
import { isSealed } from './proxy-secrets.ts';
import { createProxyService } from './proxy-service.ts';
import { findProxyRow } from './proxy-store.ts';
import { updateAuthenticatedRow } from '../integrity/row-authenticator.ts';

const CONFIG_SECRET = 'Okapi-Config-Secret-5531';
const CODE_SECRET = 'Okapi-Code-Secret-8812';

describe('proxy configuration at rest', () => {
  let f: ServicesFixture;
  let operator: Principal;
  let proxies: ProxyService;
  beforeEach(async () => {
    f = await openServicesFixture();
    // Compiling transforms is the sandbox's job, tested with it; here any code is accepted.
    proxies = createProxyService(f.vault, { checkTransform: () => Promise.resolve(null) });
    const { tenant } = await f.services.tenants.create({ name: 't', withApplication: false }, null);
    operator = { kind: 'operator', tenantId: tenant.id };
  });
  afterEach(() => f.close());

  const storedClear = () => placesHolding(f.tmp, f.vault.db, 'Okapi');

  it('seals the configuration and transform code: not in rows, journal or vault file, yet read back intact', async () => {
    const code = `module.exports = async (req) => ({ body: req.args.body, headers: { 'x-key': '${CODE_SECRET}' } });`;
    const created = await proxies.create(operator, {
      name: 'p',
      destination_url: 'https://api.example/',
      configuration: { api_key: CONFIG_SECRET },
      request_transform: { code },
    });
    expect(created.configuration).toEqual({ api_key: CONFIG_SECRET });

    const row = await f.vault.db
      .selectFrom('proxies')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(isSealed(row.configuration)).toBe(true);
    expect(isSealed(row.request_transform!)).toBe(true);
    expect(JSON.stringify(row)).not.toContain('Okapi');

    if (testBackend() === 'embedded') {
      // The journal carries the sealed value itself, not a re-encoding of the clear one.
      expect((await decryptedVaultFiles(f.tmp.vaultPath, f.tmp.key)).journal).toContain(row.configuration);
    }
    expect(await storedClear()).toEqual([]);
    expect(await proxies.get(operator, created.id)).toMatchObject({
      configuration: { api_key: CONFIG_SECRET },
      request_transform: { code },
    });

    const updated = await proxies.update(operator, created.id, {
      name: 'p',
      destination_url: 'https://api.example/',
      configuration: { api_key: `${CONFIG_SECRET}-2` },
    });
    expect(updated.configuration).toEqual({ api_key: `${CONFIG_SECRET}-2` });
    await f.vault.compact();
    expect(await storedClear()).toEqual([]);
    const page = await proxies.list(operator, {}, { page: 1, size: 10 });
    expect(page.items[0]?.configuration).toEqual({ api_key: `${CONFIG_SECRET}-2` });
  });

  it('opens rows stored before sealing, and a key rotation seals them and moves the rest to the new term', async () => {
    const created = await proxies.create(operator, {
      name: 'p',
      destination_url: 'https://api.example/',
      configuration: { api_key: CONFIG_SECRET },
    });
    const legacy = await proxies.create(operator, {
      name: 'legacy',
      destination_url: 'https://api.example/',
      configuration: { api_key: 'x' },
    });
    // As a vault written before sealing stores it: plain JSON (its row MAC'd as found, as the
    // migration that added row MACs does).
    await f.vault.transaction(async (trx) => {
      const row = await findProxyRow(trx, f.vault, legacy.id);
      await updateAuthenticatedRow(trx, f.vault, 'proxies', row!, {
        configuration: JSON.stringify({ api_key: CONFIG_SECRET }),
      });
    });
    expect((await proxies.get(operator, legacy.id)).configuration).toEqual({ api_key: CONFIG_SECRET });

    const result = await rotateKeys(f.vault, f.tmp.key);
    expect(result.resealedProxies).toBe(2);
    const rows = await f.vault.db.selectFrom('proxies').select(['configuration']).execute();
    for (const row of rows) expect(row.configuration).toMatch(new RegExp(`^v1\\.${result.term}\\.`));
    expect((await proxies.get(operator, created.id)).configuration).toEqual({
      api_key: CONFIG_SECRET,
    });
    expect((await proxies.get(operator, legacy.id)).configuration).toEqual({
      api_key: CONFIG_SECRET,
    });

    expect(await storedClear()).toEqual([]);
    // The file backend also reloads what it wrote; a database has nothing to reload.
    if (testBackend() === 'postgres') return;
    await f.vault.close();
    const again = await openVault({ path: f.tmp.vaultPath, key: f.tmp.key });
    try {
      const stored = await again.db.selectFrom('proxies').select('configuration').execute();
      expect(JSON.stringify(stored)).not.toContain('Okapi');
    } finally {
      await again.close();
    }
    f = { ...f, close: () => f.tmp.cleanup() };
  });
});

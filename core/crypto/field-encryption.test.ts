import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { makeTempDir } from '../test-support/temp-vault.ts';
import type { TempDir } from '../test-support/temp-vault.ts';
import { createVault, openVault } from '../vault/index.ts';
import { envelopeTerm, openField, sealField } from './field-envelope.ts';
import { loadSodium } from './sodium.ts';
import { TenantKeys } from './tenant-keys.ts';
import { withRowMac } from '../integrity/row-authenticator.ts';

const TENANT = '7a1f1a52-3c3e-4a47-8a8e-9df0f1b3c0aa';

describe('per-tenant keys and field envelopes', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.cleanup());

  async function withTenant() {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await vault.transaction(async (trx) => {
      await trx
        .insertInto('tenants')
        .values(
          withRowMac(vault, 'tenants', {
            id: TENANT,
            owner_id: null,
            name: 't',
            settings: '{}',
            created_at: 'x',
            created_by: null,
            modified_at: null,
            modified_by: null,
          }),
        )
        .execute();
    });
    return vault;
  }

  it('seals token data per tenant and token, and opens it after a reopen', async () => {
    const sodium = await loadSodium();
    const vault = await withTenant();
    const keys = new TenantKeys(vault);
    const envelope = await vault.transaction(async (trx) => {
      const key = await keys.current(trx, TENANT, 'data');
      return sealField(sodium, key, TENANT, 'tok-1', Buffer.from('4242424242424242'));
    });
    expect(envelope).toMatch(/^v1\.1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(envelope).not.toContain('4242');
    await vault.close();

    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    const fresh = new TenantKeys(again);
    const key = await fresh.forTerm(again.db, TENANT, 'data', envelopeTerm(envelope));
    expect(Buffer.from(openField(sodium, key, TENANT, 'tok-1', envelope)).toString()).toBe(
      '4242424242424242',
    );
    // The AAD pins the ciphertext to its token.
    let err: unknown;
    try {
      openField(sodium, key, TENANT, 'tok-2', envelope);
    } catch (e) {
      err = e;
    }
    expect(isVaultError(err, 'VAULT_CORRUPT')).toBe(true);
    await again.close();
  });

  it('keeps separate keys per purpose and one key per purpose across calls', async () => {
    const vault = await withTenant();
    const keys = new TenantKeys(vault);
    const [a, b, c] = await vault.transaction(async (trx) => [
      await keys.current(trx, TENANT, 'data'),
      await keys.current(trx, TENANT, 'data'),
      await keys.current(trx, TENANT, 'fingerprint'),
    ]);
    expect(Buffer.from(a!.key).equals(Buffer.from(b!.key))).toBe(true);
    expect(Buffer.from(a!.key).equals(Buffer.from(c!.key))).toBe(false);
    await vault.close();
  });

  it('never serves a key from a rolled-back transaction', async () => {
    const vault = await withTenant();
    const keys = new TenantKeys(vault);
    let lost: Uint8Array | undefined;
    await vault
      .transaction(async (trx) => {
        await keys.current(trx, TENANT, 'data');
        lost = (await keys.current(trx, TENANT, 'data')).key; // read back inside the transaction: cached
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const kept = await vault.transaction((trx) => keys.current(trx, TENANT, 'data'));
    const reread = await keys.forTerm(vault.db, TENANT, 'data', kept.term);
    expect(Buffer.from(reread.key).equals(Buffer.from(kept.key))).toBe(true);
    expect(Buffer.from(reread.key).equals(Buffer.from(lost!))).toBe(false);
    await vault.close();
  });
});

import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { openField, envelopeTerm } from '../crypto/field-envelope.ts';
import { loadSodium } from '../crypto/sodium.ts';
import { openVaultFile, readHeader, readSnapshot } from '../backends/embedded/vault-file.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';
import { openVault, readVaultStatus } from './index.ts';
import { unlockKeyring } from './load.ts';
import { rotateKeys } from './rotation.ts';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const BEFORE = '4111111111111111';
const AFTER = '5555555555554444';

async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return null;
  } catch (err) {
    return err;
  }
}

describe('key rotation', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it('moves every envelope, wrapped key and the snapshot to a new term and forgets the old one', async () => {
    const { token: before } = await f.services.tokens.create(f.app, { type: 'card_number', data: BEFORE });
    await f.services.tokens.create(f.app, { type: 'token', data: { nested: 'second token' } });
    expect(f.vault.keyTerms).toEqual([1]);

    const result = await rotateKeys(f.vault, f.tmp.key);
    // Row MACs: the tenant, its application and the two tokens.
    expect(result).toEqual({
      term: 2,
      retired: [1],
      resealed: 2,
      resealedProxies: 0,
      resealedReactors: 0,
      rowMacs: 4,
    });
    expect(f.vault.keyTerm).toBe(2);
    expect((await readVaultStatus(f.tmp.vaultPath)).key_terms).toEqual([2]);
    const envelopes = await f.vault.db.selectFrom('tokens').select('data').execute();
    expect(envelopes.map((e) => envelopeTerm(e.data))).toEqual([2, 2]);
    const terms = await f.vault.db.selectFrom('tenant_keys').select('term').distinct().execute();
    expect(terms).toEqual([{ term: 2 }]);
    const audit = await f.vault.db
      .selectFrom('audit_logs')
      .select(['tenant_id', 'entity_type', 'operation', 'message', 'actor_id'])
      .where('message', 'like', 'Keys rotated%')
      .orderBy('tenant_id')
      .execute();
    expect(audit).toEqual(
      [f.tenantId, f.otherTenantId].sort().map((tenant_id) => ({
        tenant_id,
        entity_type: 'tenant',
        operation: 'update',
        message: 'Keys rotated to key term 2',
        actor_id: null,
      })),
    );

    // Old data stays readable; fingerprints stay the same, so deduplication and search still work.
    expect((await f.services.tokens.get(f.operator, before.id)).data).toBe(BEFORE);
    const { token: again } = await f.services.tokens.create(f.app, { type: 'card_number', data: BEFORE });
    expect(again.fingerprint).toBe(before.fingerprint);
    const found = await f.services.tokens.search(f.operator, {
      query: `fingerprint:${before.fingerprint}`,
      page: 1,
      size: 10,
    });
    expect(found.items.map((t) => t.id).sort()).toEqual([before.id, again.id].sort());

    await f.vault.close();
    const reopened = await openVault({ path: f.tmp.vaultPath, key: f.tmp.key });
    expect(reopened.keyTerms).toEqual([2]);
    await reopened.close();
    // The fixture closes its own (already closed) vault again: harmless.
  });

  it('a token created after the rotation cannot be read with the old key material', async () => {
    const sodium = await loadSodium();
    await f.services.tokens.create(f.app, { type: 'card_number', data: BEFORE });
    await f.vault.compact();
    // The attacker's material: the key file (unchanged by a rotation) and an old copy of the vault file.
    const oldCopy = join(f.tmp.dir, 'old-copy.svc');
    await writeFile(oldCopy, await readFile(f.tmp.vaultPath));
    const oldHandle = await openVaultFile(oldCopy);
    const oldKeyring = unlockKeyring(
      sodium,
      (await readHeader(sodium, oldHandle, oldCopy)).header,
      f.tmp.key,
    );
    await oldHandle.close();
    // Old tenant data key, as the old copy of the database holds it.
    const oldWrapped = await f.vault.db
      .selectFrom('tenant_keys')
      .select(['wrapped', 'term'])
      .where('tenant_id', '=', f.tenantId)
      .where('purpose', '=', 'data')
      .executeTakeFirstOrThrow();
    const oldDataKey = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
      null,
      oldWrapped.wrapped.subarray(24),
      Buffer.from(`svc-tenant-key:v1:${f.tenantId}:data`),
      oldWrapped.wrapped.subarray(0, 24),
      oldKeyring.wrapKey(oldWrapped.term),
    );

    await rotateKeys(f.vault, f.tmp.key);
    const { token: after } = await f.services.tokens.create(f.app, { type: 'card_number', data: AFTER });
    await f.vault.compact();

    // The current vault file does not open with the old keyring: its term is not there, and the
    // old term's file key does not authenticate it.
    const handle = await openVaultFile(f.tmp.vaultPath);
    const read = await readHeader(sodium, handle, f.tmp.vaultPath);
    expect(read.header.snapshot.term).toBe(2);
    expect(isVaultError(await failure(() => oldKeyring.fileKey(2)), 'VAULT_CORRUPT')).toBe(true);
    expect(
      isVaultError(
        await failure(() => readSnapshot(sodium, handle, f.tmp.vaultPath, read, oldKeyring.fileKey(1))),
        'VAULT_CORRUPT',
      ),
    ).toBe(true);
    await handle.close();
    // Even given the new envelope itself, neither the old keyring nor the old data key opens it.
    const row = await f.vault.db
      .selectFrom('tokens')
      .select('data')
      .where('id', '=', after.id)
      .executeTakeFirstOrThrow();
    expect(envelopeTerm(row.data)).toBe(2);
    expect(isVaultError(await failure(() => oldKeyring.wrapKey(2)), 'VAULT_CORRUPT')).toBe(true);
    const withOldKey = await failure(() =>
      openField(sodium, { term: 2, key: oldDataKey }, f.tenantId, after.id, row.data),
    );
    expect(isVaultError(withOldKey, 'VAULT_CORRUPT')).toBe(true);
    expect((await f.services.tokens.get(f.operator, after.id)).data).toBe(AFTER);
  });

  it('refuses a wrong key and changes nothing', async () => {
    await f.services.tokens.create(f.app, { data: 'x' });
    // As base64: compared as one string; toEqual walks a Buffer element by element.
    const before = (await readFile(vaultPaths(f.tmp.vaultPath).vault)).toString('base64');
    const err = await failure(() => rotateKeys(f.vault, { kind: 'key', key: new Uint8Array(32).fill(9) }));
    expect(isVaultError(err, 'VAULT_WRONG_KEY')).toBe(true);
    expect(f.vault.keyTerms).toEqual([1]);
    expect((await readFile(vaultPaths(f.tmp.vaultPath).vault)).toString('base64')).toBe(before);
  });
});

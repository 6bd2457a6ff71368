import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { FAST_KDF, makeTempDir, snapshotFiles } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import {
  backupVault,
  createVault,
  openVault,
  readVaultStatus,
  rekeyVault,
  restoreVault,
} from '../../vault/index.ts';
import type { VaultHandle } from '../../vault/types.ts';

async function put(vault: VaultHandle, key: string, value = 'v'): Promise<void> {
  await vault.transaction(async (trx) => {
    await trx.insertInto('vault_meta').values({ key, value }).execute();
  });
}

async function keys(vault: VaultHandle, prefix: string): Promise<string[]> {
  const rows = await vault.db
    .selectFrom('vault_meta')
    .select('key')
    .where('key', 'like', `${prefix}%`)
    .orderBy('key')
    .execute();
  return rows.map((r) => r.key);
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isVaultError(err) ? err.code : err === undefined ? undefined : String(err);
}

describe('backup, restore and rekey', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.cleanup());

  it('backs up the last committed state while the vault is held and written to', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, snapshotThresholdBytes: 4096 });
    for (let i = 0; i < 20; i++) await put(vault, `before${String(i).padStart(2, '0')}`);
    const out = join(tmp.dir, 'backup.svc');
    // Writers keep committing (and snapshotting) while the backup runs.
    const writing = (async () => {
      for (let i = 0; i < 60; i++) await put(vault, `during${String(i).padStart(2, '0')}`);
    })();
    const result = await backupVault({ path: tmp.vaultPath, key: tmp.key, out });
    await writing;
    expect(result.sequence).toBeGreaterThan(20);
    await vault.close();

    const restoredPath = join(tmp.dir, 'restored', 'vault.svc');
    await restoreVault({ from: out, path: restoredPath, key: tmp.key });
    const restored = await openVault({ path: restoredPath, key: tmp.key });
    expect(await keys(restored, 'before')).toHaveLength(20);
    // A prefix of the concurrent commits, in order: a state that really existed.
    const during = await keys(restored, 'during');
    expect(during).toEqual(
      Array.from({ length: during.length }, (_, i) => `during${String(i).padStart(2, '0')}`),
    );
    await restored.close();
  });

  it('refuses to overwrite an existing backup or vault unless forced, and verifies before restoring', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await put(vault, 'one');
    const out = join(tmp.dir, 'backup.svc');
    await backupVault({ path: tmp.vaultPath, key: tmp.key, out });
    expect(await codeOf(backupVault({ path: tmp.vaultPath, key: tmp.key, out }))).toBe('VAULT_EXISTS');
    await put(vault, 'two');
    await vault.close();

    const before = await snapshotFiles(tmp.dir);
    expect(await codeOf(restoreVault({ from: out, path: tmp.vaultPath, key: tmp.key }))).toBe('VAULT_EXISTS');
    // A damaged backup is refused even with force, and the vault is untouched.
    const damagedPath = join(tmp.dir, 'damaged.svc');
    const bytes = await readFile(out);
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff;
    await writeFile(damagedPath, bytes);
    expect(
      await codeOf(restoreVault({ from: damagedPath, path: tmp.vaultPath, key: tmp.key, force: true })),
    ).toBe('VAULT_CORRUPT');
    expect(
      await codeOf(
        restoreVault({
          from: out,
          path: tmp.vaultPath,
          key: { kind: 'key', key: new Uint8Array(32) },
          force: true,
        }),
      ),
    ).toBe('VAULT_WRONG_KEY');
    const after = await snapshotFiles(tmp.dir);
    after.delete('damaged.svc');
    expect(after).toEqual(before);

    await restoreVault({ from: out, path: tmp.vaultPath, key: tmp.key, force: true });
    const restored = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(restored, 't')).toEqual([]);
    expect(await keys(restored, 'o')).toEqual(['one']);
    await restored.close();
  });

  it('refuses to restore over a vault another process holds', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    const out = join(tmp.dir, 'backup.svc');
    await backupVault({ path: tmp.vaultPath, key: tmp.key, out });
    expect(await codeOf(restoreVault({ from: out, path: tmp.vaultPath, key: tmp.key, force: true }))).toBe(
      'VAULT_LOCKED',
    );
    await vault.close();
  });

  it('rekeys from a key to a passphrase and back, keeping the data and the journal', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await put(vault, 'kept');
    await vault.close({ snapshot: false });
    const passphrase = { kind: 'passphrase' as const, passphrase: 'a long passphrase for the vault' };
    expect(await codeOf(rekeyVault({ path: tmp.vaultPath, key: passphrase, newKey: tmp.key }))).toBe(
      'VAULT_WRONG_KEY',
    );
    await rekeyVault({ path: tmp.vaultPath, key: tmp.key, newKey: passphrase, kdf: FAST_KDF });
    expect(await codeOf(openVault({ path: tmp.vaultPath, key: tmp.key }))).toBe('VAULT_WRONG_KEY');
    expect((await readVaultStatus(tmp.vaultPath)).key_source).toBe('passphrase');
    const reopened = await openVault({ path: tmp.vaultPath, key: passphrase });
    expect(await keys(reopened, 'kept')).toEqual(['kept']);
    await reopened.close();
    await rekeyVault({ path: tmp.vaultPath, key: passphrase, newKey: tmp.key });
    const back = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(back, 'kept')).toEqual(['kept']);
    await back.close();
  });

  it('refuses to rekey a vault another process holds', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    expect(
      await codeOf(
        rekeyVault({
          path: tmp.vaultPath,
          key: tmp.key,
          newKey: { kind: 'key', key: new Uint8Array(32).fill(1) },
        }),
      ),
    ).toBe('VAULT_LOCKED');
    await vault.close();
  });
});

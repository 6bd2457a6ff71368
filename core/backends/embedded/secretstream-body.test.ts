import { randomBytes } from 'node:crypto';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { openVault, readVaultStatus } from '../../vault/index.ts';
import type { VaultHandle } from '../../vault/types.ts';
import type { KeySource } from '../../crypto/root-key.ts';
import { CHUNKED_BODY_FORMAT } from './chunked-body.ts';
import { vaultPaths } from './paths.ts';
import { openVaultFile, readHeader, rewriteHeader } from './vault-file.ts';
import { createSecretstreamVault } from './test-support/secretstream-vault.ts';
import type { HeaderRead } from './vault-file.ts';

/** The key of the vault each test writes as the build before the chunked body format did. */
const KEY: KeySource = { kind: 'key', key: new Uint8Array(randomBytes(32)) };

async function rows(vault: VaultHandle): Promise<Record<string, string>> {
  const found = await vault.db.selectFrom('vault_meta').select(['key', 'value']).execute();
  return Object.fromEntries(found.filter((r) => r.key.startsWith('written-')).map((r) => [r.key, r.value]));
}

async function headerOf(path: string): Promise<HeaderRead> {
  const sodium = await loadSodium();
  const handle = await openVaultFile(path);
  try {
    return await readHeader(sodium, handle, path);
  } finally {
    await handle.close();
  }
}

describe('secretstream snapshot body (vaults written before the chunked format)', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
    await createSecretstreamVault(tmp.vaultPath, KEY, { 'written-by': 'secretstream-format' });
  });
  afterEach(() => tmp.cleanup());

  it('opens, and its next (held) snapshot is written in the chunked format', async () => {
    expect((await readVaultStatus(tmp.vaultPath)).format_version).toBe(1);
    const before = await headerOf(tmp.vaultPath);
    expect(before.header.snapshot.body).toBeUndefined();

    const vault = await openVault({ path: tmp.vaultPath, key: KEY });
    expect(await rows(vault)).toEqual({ 'written-by': 'secretstream-format' });
    await vault.transaction((trx) =>
      trx.insertInto('vault_meta').values({ key: 'written-after', value: 'chunked-format' }).execute(),
    );
    await vault.close();

    const after = await headerOf(tmp.vaultPath);
    expect(after.formatVersion).toBe(2);
    expect(after.header.snapshot.body).toBe(CHUNKED_BODY_FORMAT);
    expect((await readVaultStatus(tmp.vaultPath)).format_version).toBe(2);
    const again = await openVault({ path: tmp.vaultPath, key: KEY });
    expect(await rows(again)).toEqual({
      'written-by': 'secretstream-format',
      'written-after': 'chunked-format',
    });
    await again.close();
  });

  it('has its background snapshot written by the worker in the chunked format', async () => {
    const vault = await openVault({ path: tmp.vaultPath, key: KEY });
    await vault.transaction((trx) =>
      trx.insertInto('vault_meta').values({ key: 'written-after', value: 'chunked-format' }).execute(),
    );
    await vault.compact();
    const after = await headerOf(tmp.vaultPath);
    expect(after.header.snapshot.body).toBe(CHUNKED_BODY_FORMAT);
    expect(after.header.snapshot.sequence).toBeGreaterThan(0);
    await expect(stat(vaultPaths(tmp.vaultPath).previousJournal)).rejects.toThrow();
    await vault.close({ snapshot: false });
    const again = await openVault({ path: tmp.vaultPath, key: KEY });
    expect(await rows(again)).toEqual({
      'written-by': 'secretstream-format',
      'written-after': 'chunked-format',
    });
    await again.close({ snapshot: false });
  });

  it('keeps naming its body a secretstream when only the header is rewritten', async () => {
    const sodium = await loadSodium();
    const handle = await openVaultFile(tmp.vaultPath);
    const read = await readHeader(sodium, handle, tmp.vaultPath);
    // A caller's header that names the chunked format does not change what the body is.
    const claimed = { ...read.header, snapshot: { ...read.header.snapshot, body: CHUNKED_BODY_FORMAT } };
    const rewritten = join(tmp.dir, 'rewritten.svc');
    await rewriteHeader(sodium, rewritten, handle, read, claimed);
    await handle.close();
    await rename(rewritten, tmp.vaultPath);
    const after = await headerOf(tmp.vaultPath);
    expect(after.formatVersion).toBe(1);
    expect(after.header.snapshot.body).toBeUndefined();
    const vault = await openVault({ path: tmp.vaultPath, key: KEY });
    expect(await rows(vault)).toEqual({ 'written-by': 'secretstream-format' });
    await vault.close({ snapshot: false });
  });

  it('still refuses a flipped byte in its body', async () => {
    const bytes = await readFile(tmp.vaultPath);
    const { bodyOffset } = await headerOf(tmp.vaultPath);
    const at = bodyOffset + Math.floor((bytes.length - bodyOffset) / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    await writeFile(tmp.vaultPath, bytes);
    const err = await openVault({ path: tmp.vaultPath, key: KEY }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isVaultError(err, 'VAULT_CORRUPT'), String(err)).toBe(true);
  });
});

import { createHash } from 'node:crypto';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorIn } from '../../access/principal.ts';
import { createServices, outboxTenancyOptions } from '../../services.ts';
import { FAST_KDF } from '../../test-support/temp-vault.ts';
import { appIn } from '../../test-support/token-kit.ts';
import { vaultPaths } from './paths.ts';
import { nodeStorageFs } from './storage-fs.ts';
import type { StorageFs } from './storage-fs.ts';
import { faultyFs } from './test-support/faulty-fs.ts';
import type { Fault } from './test-support/faulty-fs.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { readHeader, openVaultFile } from './vault-file.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import { createVault, openVault } from '../../vault/index.ts';
import type { VaultHandle } from '../../vault/types.ts';

async function put(vault: VaultHandle, key: string): Promise<void> {
  await vault.transaction(async (trx) => {
    await trx
      .insertInto('vault_meta')
      .values({ key, value: 'x'.repeat(50) })
      .execute();
  });
}

async function keys(vault: VaultHandle): Promise<string[]> {
  const rows = await vault.db.selectFrom('vault_meta').select('key').where('key', 'like', 'k%').execute();
  return rows.map((r) => r.key).sort();
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function snapshotSequence(path: string): Promise<number> {
  const sodium = await loadSodium();
  const handle = await openVaultFile(path);
  try {
    return (await readHeader(sodium, handle, path)).header.snapshot.sequence;
  } finally {
    await handle.close();
  }
}

/** Row count and a digest of every table's rows (in a stable order), read through the vault. */
async function contentDigest(vault: VaultHandle): Promise<Record<string, { rows: number; sha256: string }>> {
  const tables = await sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(vault.db);
  const digest: Record<string, { rows: number; sha256: string }> = {};
  for (const { name } of tables.rows) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.id(name)}`.execute(vault.db);
    const lines = rows
      .map((row) =>
        JSON.stringify(row, (_k, v: unknown) =>
          v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
        ),
      )
      .sort();
    digest[name] = { rows: rows.length, sha256: createHash('sha256').update(lines.join('\n')).digest('hex') };
  }
  return digest;
}

/** A file layer whose writes of the new vault file wait until `open()` is called. */
function gatedFs(vaultPath: string): { fs: StorageFs; arm(): void; open(): void; reached: Promise<void> } {
  let armed = false;
  let release: () => void = () => undefined;
  let signal: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (signal = resolve));
  const temp = `.${vaultPath.split('/').pop()!}.`;
  const fs: StorageFs = {
    ...nodeStorageFs,
    open: async (path, flags, mode) => {
      const handle = await nodeStorageFs.open(path, flags, mode);
      if (!armed || flags !== 'wx' || !path.includes(temp)) return handle;
      return {
        ...handle,
        read: (b, o, l, p) => handle.read(b, o, l, p),
        readFile: () => handle.readFile(),
        truncate: (l) => handle.truncate(l),
        sync: () => handle.sync(),
        datasync: () => handle.datasync(),
        stat: () => handle.stat(),
        close: () => handle.close(),
        write: async (b, o, l, p) => {
          signal();
          await gate;
          return handle.write(b, o, l, p);
        },
      };
    },
  };
  return { fs, arm: () => (armed = true), open: release, reached };
}

describe('background snapshots', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.cleanup());

  it('lets commits through while the snapshot is written, into a new journal segment', async () => {
    const gated = gatedFs(tmp.vaultPath);
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs: gated.fs });
    const files = vaultPaths(tmp.vaultPath);
    for (let i = 0; i < 5; i++) await put(vault, `k-before-${i}`);
    gated.arm();
    const snapshot = vault.compact();
    await gated.reached;
    // The snapshot is stuck writing the vault file; the vault still commits and reads.
    expect(await exists(files.previousJournal)).toBe(true);
    for (let i = 0; i < 5; i++) await put(vault, `k-during-${i}`);
    expect(await keys(vault)).toHaveLength(10);
    gated.open();
    await snapshot;
    expect(await exists(files.previousJournal)).toBe(false);
    await vault.close({ snapshot: false });

    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(again)).toHaveLength(10);
    await again.close();
  });

  it('reopens from the old snapshot plus both segments, and folds them into a new snapshot', async () => {
    let fault: Fault | null = null;
    const fs = faultyFs(() => fault);
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs });
    const files = vaultPaths(tmp.vaultPath);
    for (let i = 0; i < 5; i++) await put(vault, `k-before-${i}`);
    const before = await snapshotSequence(tmp.vaultPath);
    // The vault file's write fails after the rotation: the files are left as a crash in the middle
    // of a background snapshot leaves them (old snapshot, previous segment, new segment).
    fault = (op, path) => (op === 'create' && path.includes('.vault.svc.') ? 'EIO' : null);
    await expect(vault.compact()).rejects.toThrow();
    fault = null;
    expect(await exists(files.previousJournal)).toBe(true);
    for (let i = 0; i < 5; i++) await put(vault, `k-during-${i}`);
    await vault.close({ snapshot: false });
    expect(await snapshotSequence(tmp.vaultPath)).toBe(before);

    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(again)).toHaveLength(10);
    expect(await exists(files.previousJournal)).toBe(false);
    expect(await snapshotSequence(tmp.vaultPath)).toBeGreaterThan(before);
    await again.close({ snapshot: false });
    const third = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(third)).toHaveLength(10);
    await third.close();
  });

  it('after a failed background snapshot, the next one (held) covers both segments', async () => {
    let fault: Fault | null = null;
    const fs = faultyFs(() => fault);
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs });
    const files = vaultPaths(tmp.vaultPath);
    for (let i = 0; i < 3; i++) await put(vault, `k-a-${i}`);
    fault = (op, path) => (op === 'create' && path.includes('.vault.svc.') ? 'EIO' : null);
    await expect(vault.compact()).rejects.toThrow();
    fault = null;
    for (let i = 0; i < 3; i++) await put(vault, `k-b-${i}`);
    await vault.compact();
    expect(await exists(files.previousJournal)).toBe(false);
    for (let i = 0; i < 3; i++) await put(vault, `k-c-${i}`);
    await vault.compact();
    await vault.close({ snapshot: false });
    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(again)).toHaveLength(9);
    await again.close();
  });

  it('builds the new snapshot in a worker from the files, equal to the live database under writes', async () => {
    // The real file system: the snapshot is built in its worker thread.
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    const files = vaultPaths(tmp.vaultPath);
    const services = createServices(vault, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(tmp.dir) });
    const { tenant } = await services.tenants.create({ name: 'Acme', withApplication: false }, null);
    const app = appIn(tenant.id, { permissions: ['token:create', 'token:read'] });
    const made: Array<{ id: string; data: string }> = [];
    const tokenize = async (from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        const data = `secret-${i}`;
        const { token } = await services.tokens.create(app, { type: 'token', data });
        made.push({ id: token.id, data });
      }
    };
    await tokenize(0, 40);
    const before = await snapshotSequence(tmp.vaultPath);
    await Promise.all([vault.compact(), tokenize(40, 40)]);
    expect(await exists(files.previousJournal)).toBe(false);
    expect(await snapshotSequence(tmp.vaultPath)).toBeGreaterThan(before);

    // The new vault file plus the current segment, replayed afresh, hold what the live database holds.
    const copy = join(tmp.dir, 'copy');
    await mkdir(copy);
    const copied = vaultPaths(join(copy, 'vault.svc'));
    await copyFile(files.vault, copied.vault);
    await copyFile(files.journal, copied.journal);
    await copyFile(files.acknowledged, copied.acknowledged);
    const replayed = await openVault({ path: copied.vault, key: tmp.key });
    expect(await contentDigest(replayed)).toEqual(await contentDigest(vault));
    await replayed.close({ snapshot: false });
    await vault.close({ snapshot: false });

    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    const reader = createServices(again, { passwordKdf: FAST_KDF, tenancy: outboxTenancyOptions(tmp.dir) });
    expect(made).toHaveLength(80);
    for (const { id, data } of made)
      expect((await reader.tokens.get(operatorIn(tenant.id), id)).data).toBe(data);
    await again.close();
  });

  it('writes no snapshot on a close after only reads', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await put(vault, 'k-1');
    await vault.close({ snapshot: false });
    const before = await stat(tmp.vaultPath);
    const reader = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(await keys(reader)).toEqual(['k-1']);
    await reader.close();
    expect((await stat(tmp.vaultPath)).ino).toBe(before.ino);
    const writer = await openVault({ path: tmp.vaultPath, key: tmp.key });
    await put(writer, 'k-2');
    await writer.close();
    expect((await stat(tmp.vaultPath)).ino).not.toBe(before.ino);
  });
});

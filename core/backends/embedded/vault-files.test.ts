import { appendFile, readFile, rename, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { FAST_KDF, makeTempDir, snapshotFiles } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { createVault, openVault, readVaultStatus } from '../../vault/index.ts';
import type { VaultHandle } from '../../vault/types.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import { vaultPaths } from './paths.ts';
import { openVaultFile, readHeader, rewriteHeader } from './vault-file.ts';

const SECRET = 'Zebra-Quasar-4111-1111-1111-1111-secret';

async function put(vault: VaultHandle, key: string, value: string): Promise<void> {
  await vault.transaction(async (trx) => {
    await trx.insertInto('vault_meta').values({ key, value }).execute();
  });
}

async function expectError(promise: Promise<unknown>, code: string): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isVaultError(err), `expected ${code}, got ${String(err)}`).toBe(true);
  expect((err as { code: string }).code).toBe(code);
}

describe('vault files', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(() => tmp.cleanup());

  it('keeps data across close and reopen, and across a crash without close (journal replay)', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await put(vault, 'a', '1');
    await vault.close();
    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    await put(again, 'b', '2');
    const files = vaultPaths(tmp.vaultPath);
    expect((await stat(files.journal)).size).toBeGreaterThan(52);
    await again.close({ snapshot: false });
    expect((await readVaultStatus(tmp.vaultPath)).journal_records).toBe(1);
    const third = await openVault({ path: tmp.vaultPath, key: tmp.key });
    const rows = await third.db.selectFrom('vault_meta').select(['key', 'value']).orderBy('key').execute();
    expect(rows.filter((r) => r.key.length === 1)).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    await third.close();
  });

  it('stores no plaintext: neither the vault file nor the journal contains a written string or its base64', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await put(vault, 'secret-before-snapshot', SECRET);
    await vault.compact();
    await put(vault, 'secret-in-journal', SECRET);
    const files = vaultPaths(tmp.vaultPath);
    const needles = [SECRET, Buffer.from(SECRET).toString('base64'), 'secret-in-journal', 'vault_meta'];
    for (const file of [files.vault, files.journal]) {
      const bytes = await readFile(file);
      for (const needle of needles)
        expect(bytes.includes(Buffer.from(needle)), `${needle} in ${file}`).toBe(false);
    }
    await vault.close();
  });

  it('rolls back a failed transaction: nothing visible, nothing journaled', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    const before = await readVaultStatus(tmp.vaultPath);
    await expect(
      vault.transaction(async (trx) => {
        await trx.insertInto('vault_meta').values({ key: 'half', value: 'x' }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await vault.db.selectFrom('vault_meta').select('key').where('key', '=', 'half').execute()).toEqual(
      [],
    );
    expect((await readVaultStatus(tmp.vaultPath)).journal_records).toBe(before.journal_records);
    await vault.close();
  });

  it('refuses writes outside a transaction and statements that read a clock or random source', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await expectError(
      vault.db.insertInto('vault_meta').values({ key: 'x', value: 'y' }).execute(),
      'INTERNAL',
    );
    await expectError(
      vault.transaction(async (trx) => {
        await sql`insert into vault_meta (key, value) values ('r', random())`.execute(trx);
      }),
      'INTERNAL',
    );
    await vault.close();
  });

  it('snapshots when the journal passes the threshold and replays only what follows the snapshot', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key, snapshotThresholdBytes: 2048 });
    for (let i = 0; i < 40; i++) await put(vault, `k${i}`, 'v'.repeat(50));
    // Let the background snapshot finish.
    await vault.compact();
    const status = await readVaultStatus(tmp.vaultPath);
    expect(status.snapshot_sequence).toBeGreaterThan(2);
    expect(status.journal_records).toBe(0);
    await put(vault, 'after', 'snapshot');
    await vault.close();
    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    const count = await again.db
      .selectFrom('vault_meta')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    expect(Number(count?.n)).toBe(41);
    await again.close();
  });

  it('refuses a second opener with the holder named, and changes nothing', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await vault.setLockUrl('http://127.0.0.1:1234');
    const before = await snapshotFiles(tmp.dir);
    const err = await openVault({ path: tmp.vaultPath, key: tmp.key }).catch((e: unknown) => e);
    expect(isVaultError(err, 'VAULT_LOCKED')).toBe(true);
    expect((err as Error).message).toContain(`process ${process.pid}`);
    expect((err as Error).message).toContain('http://127.0.0.1:1234');
    expect(await snapshotFiles(tmp.dir)).toEqual(before);
    expect((await readVaultStatus(tmp.vaultPath)).lock_holder?.url).toBe('http://127.0.0.1:1234');
    await vault.close();
    expect((await readVaultStatus(tmp.vaultPath)).lock_holder).toBeNull();
  });

  describe('damage and wrong keys', () => {
    beforeEach(async () => {
      const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
      for (let i = 0; i < 5; i++) await put(vault, `snap${i}`, 'in the snapshot');
      await vault.compact();
      for (let i = 0; i < 5; i++) await put(vault, `jrnl${i}`, 'in the journal');
      // Leave without a snapshot, as a crash would: the journal keeps its records.
      await vault.close({ snapshot: false });
    });

    it('refuses a wrong key without touching the files', async () => {
      const before = await snapshotFiles(tmp.dir);
      await expectError(
        openVault({ path: tmp.vaultPath, key: { kind: 'key', key: new Uint8Array(32).fill(7) } }),
        'VAULT_WRONG_KEY',
      );
      await expectError(
        openVault({ path: tmp.vaultPath, key: { kind: 'passphrase', passphrase: 'nope' } }),
        'VAULT_WRONG_KEY',
      );
      expect(await snapshotFiles(tmp.dir)).toEqual(before);
    });

    it('refuses a flipped byte anywhere in the vault file or the journal, changing nothing', async () => {
      const files = vaultPaths(tmp.vaultPath);
      for (const file of [files.vault, files.journal]) {
        const original = await readFile(file);
        // A spread of positions: header, keyring, body start, middle, last byte.
        const positions = [
          0,
          9,
          20,
          60,
          Math.floor(original.length / 3),
          Math.floor(original.length / 2),
          original.length - 1,
        ];
        for (const position of positions) {
          const damaged = Buffer.from(original);
          damaged[position] = damaged[position]! ^ 0x01;
          await writeFile(file, damaged);
          const before = await snapshotFiles(tmp.dir);
          const err = await openVault({ path: tmp.vaultPath, key: tmp.key }).catch((e: unknown) => e);
          expect(isVaultError(err), `flip at ${position} of ${file}: ${String(err)}`).toBe(true);
          expect((err as { code: string }).code).toBe('VAULT_CORRUPT');
          expect(await snapshotFiles(tmp.dir)).toEqual(before);
        }
        await writeFile(file, original);
      }
      const vault = await openVault({ path: tmp.vaultPath, key: tmp.key });
      await vault.close();
      // Fifteen full opens, each deriving the key: minutes on a loaded machine, not seconds.
    }, 180_000);

    it('refuses a truncated vault file, changing nothing', async () => {
      const files = vaultPaths(tmp.vaultPath);
      const size = (await stat(files.vault)).size;
      await truncate(files.vault, size - 10);
      const before = await snapshotFiles(tmp.dir);
      await expectError(openVault({ path: tmp.vaultPath, key: tmp.key }), 'VAULT_CORRUPT');
      expect(await snapshotFiles(tmp.dir)).toEqual(before);
    });

    it('cuts a torn journal tail (a crash mid-append) and keeps every complete record', async () => {
      const files = vaultPaths(tmp.vaultPath);
      const complete = (await stat(files.journal)).size;
      await appendFile(files.journal, Buffer.from([0x40, 0x00, 0x00]));
      const vault = await openVault({ path: tmp.vaultPath, key: tmp.key });
      const rows = await vault.db
        .selectFrom('vault_meta')
        .select('key')
        .where('key', 'like', 'jrnl%')
        .execute();
      expect(rows).toHaveLength(5);
      expect((await stat(files.journal)).size).toBe(complete);
      await vault.close();
    });

    it('treats a torn final record that was never acknowledged as torn, losing only that record', async () => {
      const files = vaultPaths(tmp.vaultPath);
      // A crash after the record's write began but before its fsync finished: the mark had not moved.
      const markBefore = await readFile(files.acknowledged);
      const vault = await openVault({ path: tmp.vaultPath, key: tmp.key });
      await put(vault, 'unacknowledged', 'torn');
      await vault.close({ snapshot: false });
      await writeFile(files.acknowledged, markBefore);
      const size = (await stat(files.journal)).size;
      await truncate(files.journal, size - 5);
      const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
      const rows = await again.db
        .selectFrom('vault_meta')
        .select('key')
        .where('key', 'like', 'jrnl%')
        .execute();
      expect(rows).toHaveLength(5);
      expect(
        await again.db.selectFrom('vault_meta').select('key').where('key', '=', 'unacknowledged').execute(),
      ).toEqual([]);
      await again.close();
    });

    describe('refuses every loss of acknowledged commits, changing nothing and compacting nothing', () => {
      async function expectRefused(why: RegExp): Promise<void> {
        const before = await snapshotFiles(tmp.dir);
        for (let i = 0; i < 2; i++) {
          const err = await openVault({ path: tmp.vaultPath, key: tmp.key }).catch((e: unknown) => e);
          expect(isVaultError(err, 'VAULT_CORRUPT'), String(err)).toBe(true);
          expect((err as Error).message).toMatch(why);
          expect(await snapshotFiles(tmp.dir)).toEqual(before);
        }
      }

      function recordBoundaries(bytes: Buffer): number[] {
        const ends: number[] = [];
        for (let offset = 52; offset + 8 <= bytes.length;) {
          offset += 8 + bytes.readUInt32LE(offset);
          ends.push(offset);
        }
        return ends;
      }

      it('a journal cut at a record boundary', async () => {
        const files = vaultPaths(tmp.vaultPath);
        const ends = recordBoundaries(await readFile(files.journal));
        await truncate(files.journal, ends[ends.length - 2]!);
        await expectRefused(/ends at commit \d+, but commits up to \d+ were acknowledged/);
      });

      it('a journal cut inside its last acknowledged record', async () => {
        const files = vaultPaths(tmp.vaultPath);
        await truncate(files.journal, (await stat(files.journal)).size - 5);
        await expectRefused(/were acknowledged/);
      });

      it('a journal whose last two records are zeroed', async () => {
        const files = vaultPaths(tmp.vaultPath);
        const bytes = await readFile(files.journal);
        const ends = recordBoundaries(bytes);
        bytes.fill(0, ends[ends.length - 3]!);
        await writeFile(files.journal, bytes);
        await expectRefused(/were acknowledged/);
      });

      it('a deleted journal', async () => {
        await unlink(vaultPaths(tmp.vaultPath).journal);
        await expectRefused(/journal .* is missing/);
      });

      it('a deleted acknowledged-commit record', async () => {
        await unlink(vaultPaths(tmp.vaultPath).acknowledged);
        await expectRefused(/acknowledged-commit record .* is missing/);
      });

      it('a journal replaced by an empty one after the snapshot', async () => {
        const files = vaultPaths(tmp.vaultPath);
        const ends = recordBoundaries(await readFile(files.journal));
        await truncate(files.journal, 52);
        expect(ends.length).toBe(5);
        await expectRefused(/were acknowledged/);
      });
    });

    it('refuses a journal with a record removed from the middle', async () => {
      const files = vaultPaths(tmp.vaultPath);
      const bytes = await readFile(files.journal);
      const firstLength = bytes.readUInt32LE(52);
      const withoutFirst = Buffer.concat([bytes.subarray(0, 52), bytes.subarray(52 + 8 + firstLength)]);
      await writeFile(files.journal, withoutFirst);
      const before = await snapshotFiles(tmp.dir);
      await expectError(openVault({ path: tmp.vaultPath, key: tmp.key }), 'VAULT_CORRUPT');
      expect(await snapshotFiles(tmp.dir)).toEqual(before);
    });
  });

  it('gives a vault from before the acknowledged-commit mark a mark and the header flag on first open', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await put(vault, 'old', 'format');
    await vault.close({ snapshot: false });
    // Make it look like an older vault: no mark file, no header flag.
    const sodium = await loadSodium();
    const files = vaultPaths(tmp.vaultPath);
    const handle = await openVaultFile(files.vault);
    const read = await readHeader(sodium, handle, files.vault);
    const { acknowledged_mark: _flag, ...older } = read.header;
    const olderPath = join(tmp.dir, 'older.svc');
    await rewriteHeader(sodium, olderPath, handle, read, older);
    await handle.close();
    await rename(olderPath, files.vault);
    await unlink(files.acknowledged);

    const again = await openVault({ path: tmp.vaultPath, key: tmp.key });
    expect(
      await again.db.selectFrom('vault_meta').select('value').where('key', '=', 'old').execute(),
    ).toEqual([{ value: 'format' }]);
    await again.close({ snapshot: false });
    const upgraded = await openVaultFile(files.vault);
    expect((await readHeader(sodium, upgraded, files.vault)).header.acknowledged_mark).toBe(true);
    await upgraded.close();
    expect((await stat(files.acknowledged)).size).toBe(96);
  });

  it('unlocks a passphrase vault with the passphrase only', async () => {
    const key = { kind: 'passphrase' as const, passphrase: 'correct horse battery staple' };
    const vault = await createVault({ path: tmp.vaultPath, key, kdf: FAST_KDF });
    await put(vault, 'p', 'q');
    await vault.close();
    const status = await readVaultStatus(tmp.vaultPath);
    expect(status.key_source).toBe('passphrase');
    await expectError(
      openVault({ path: tmp.vaultPath, key: { kind: 'passphrase', passphrase: 'wrong' } }),
      'VAULT_WRONG_KEY',
    );
    await expectError(openVault({ path: tmp.vaultPath, key: tmp.key }), 'VAULT_WRONG_KEY');
    const again = await openVault({ path: tmp.vaultPath, key });
    expect(
      await again.db.selectFrom('vault_meta').select('value').where('key', '=', 'p').executeTakeFirst(),
    ).toEqual({ value: 'q' });
    await again.close();
  });

  it('refuses to create over an existing vault', async () => {
    const vault = await createVault({ path: tmp.vaultPath, key: tmp.key });
    await vault.close();
    const before = await snapshotFiles(tmp.dir);
    await expectError(createVault({ path: tmp.vaultPath, key: tmp.key }), 'VAULT_EXISTS');
    expect(await snapshotFiles(tmp.dir)).toEqual(before);
  });

  it('reports a missing vault clearly', async () => {
    await expectError(openVault({ path: join(tmp.dir, 'nope.svc'), key: tmp.key }), 'VAULT_NOT_FOUND');
  });
});

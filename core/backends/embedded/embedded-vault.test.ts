import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../errors/catalogue.ts';
import { createTempVault } from '../../test-support/temp-vault.ts';
import type { TempVault } from '../../test-support/temp-vault.ts';

let temp: TempVault | undefined;
afterEach(async () => {
  await temp?.dispose();
  temp = undefined;
});

const settingsCount = async (db: TempVault['vault']['db']) =>
  Number(
    (await sql<{ n: number }>`select count(*) as n from vault_meta where key = 'read-test'`.execute(db))
      .rows[0]!.n,
  );

describe('EmbeddedVault.read', () => {
  it('refuses a write before it runs, and writes no journal record', async () => {
    temp = await createTempVault();
    const { vault } = temp;
    const before = vault.sequence;
    const error = await vault
      .read((db) => sql`insert into vault_meta (key, value) values ('read-test', 'v')`.execute(db))
      .catch((e: unknown) => e);
    expect(isVaultError(error, 'INTERNAL')).toBe(true);
    expect(await settingsCount(vault.db)).toBe(0);
    expect(vault.sequence).toBe(before);
  });

  it('holds the connection: a transaction begun meanwhile runs after the read ends', async () => {
    temp = await createTempVault();
    const { vault } = temp;
    const seen: number[] = [];
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const reading = vault.read(async (db) => {
      seen.push(await settingsCount(db));
      entered();
      await gate;
      seen.push(await settingsCount(db));
    });
    await inside;
    // Begun outside the read (inside it, a transaction would join the read and be refused).
    const write = vault.transaction((trx) =>
      sql`insert into vault_meta (key, value) values ('read-test', 'v')`.execute(trx),
    );
    await new Promise((resolve) => setImmediate(resolve));
    finish();
    await reading;
    await write;
    expect(seen).toEqual([0, 0]);
    expect(await settingsCount(vault.db)).toBe(1);
  });
});

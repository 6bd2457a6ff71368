import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditRows } from '../test-support/services-fixture.ts';
import { decryptedVaultFiles, filesContaining } from '../test-support/vault-at-rest.ts';
import { openVault } from '../vault/index.ts';
import { openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

const SECRET = 'Zebra-Quartz-7731-Plaintext';

/** Every cell of every table, as text (blobs as latin1 and hex), for plaintext hunting. */
async function everyCell(f: TokenFixture, db = f.vault.db): Promise<string> {
  const tables = await db
    .selectFrom(sql<{ name: string; type: string }>`sqlite_master`.as('m'))
    .select('m.name')
    .where('m.type', '=', 'table')
    .execute();
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    for (const row of rows.rows) {
      for (const value of Object.values(row)) {
        if (value instanceof Uint8Array)
          parts.push(Buffer.from(value).toString('latin1'), Buffer.from(value).toString('hex'));
        else parts.push(String(value));
      }
    }
  }
  return parts.join('\n');
}

describe('token data at rest', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it('is never stored in plaintext: not in rows, index, audit, journal or vault file', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      data: { secret: SECRET },
      mask: { secret: '{{ data.secret | reveal_last: 4 }}' },
      search_indexes: ['{{ data.secret }}'],
      fingerprint_expression: '{{ data.secret }}',
    });
    await f.services.tokens.tokenize(f.app, {
      nested: [SECRET.toLowerCase(), { type: 'token', data: SECRET }],
    });
    await f.services.tokens.update(f.app, token.id, { data: { other: `${SECRET}-2` } });
    await f.services.tokens.get(f.operator, token.id);

    const cells = await everyCell(f);
    expect(cells).not.toContain(SECRET);
    expect(cells.toLowerCase()).not.toContain(SECRET.toLowerCase());
    const row = await f.vault.db
      .selectFrom('tokens')
      .select('data')
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(row.data).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(JSON.stringify(await auditRows(f.vault))).not.toContain('Zebra');

    // Journal (before the snapshot) and vault file (after close) hold only ciphertext, and even
    // decrypted with the file key they hold only field envelopes.
    expect(await filesContaining(f.tmp.dir, SECRET)).toEqual([]);
    expect(await filesContaining(f.tmp.dir, 'Zebra')).toEqual([]);
    const live = await decryptedVaultFiles(f.tmp.vaultPath, f.tmp.key);
    expect(live.journal).toContain(row.data);
    expect(live.journal).not.toContain('Zebra');
    expect(live.journal.toLowerCase()).not.toContain('zebra');
    await f.vault.close();
    expect(await filesContaining(f.tmp.dir, SECRET)).toEqual([]);
    expect(await filesContaining(f.tmp.dir, 'Zebra')).toEqual([]);
    const closed = await decryptedVaultFiles(f.tmp.vaultPath, f.tmp.key);
    expect(closed.image.includes(Buffer.from(row.data))).toBe(true);
    expect(closed.image.includes(Buffer.from('Zebra'))).toBe(false);
    expect(closed.image.includes(Buffer.from('zebra'))).toBe(false);

    // And it all opens again.
    const again = await openVault({ path: f.tmp.vaultPath, key: f.tmp.key });
    try {
      expect(await everyCell(f, again.db)).not.toContain(SECRET);
      expect(await again.db.selectFrom('tokens').select('id').execute()).toHaveLength(3);
    } finally {
      await again.close();
    }
  });

  it('leaves no trace of a deleted token’s envelope in the next snapshot', async () => {
    const { token } = await f.services.tokens.create(f.app, { data: SECRET });
    const { data: envelope } = await f.vault.db
      .selectFrom('tokens')
      .select('data')
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    await f.vault.compact();
    expect(
      (await decryptedVaultFiles(f.tmp.vaultPath, f.tmp.key)).image.includes(Buffer.from(envelope)),
    ).toBe(true);
    await f.services.tokens.delete(f.app, token.id);
    await f.vault.compact();
    const after = await decryptedVaultFiles(f.tmp.vaultPath, f.tmp.key);
    expect(after.image.includes(Buffer.from(envelope))).toBe(false);
    expect(after.image.includes(Buffer.from(envelope.slice(-40)))).toBe(false);
  });
});

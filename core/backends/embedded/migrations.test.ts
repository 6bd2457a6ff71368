import { rm } from 'node:fs/promises';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChains } from '../../audit/audit-log.ts';
import { createServices } from '../../services.ts';
import { FAST_KDF, createTempVault, tempVaultIn } from '../../test-support/temp-vault.ts';
import type { TempVault } from '../../test-support/temp-vault.ts';
import { appIn, ALL_TOKEN_PERMISSIONS } from '../../test-support/token-kit.ts';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { openVault } from '../../vault/index.ts';
import { loadSqlJs } from './sqljs.ts';
import type { VaultHandle } from '../../vault/types.ts';
import { SCHEMA_MIGRATIONS_DDL, migrations } from './migrations.ts';
import type { Database } from '../../storage/schema.ts';
import { SqlJsConnection, SqlJsDialect } from './sqljs-dialect.ts';
import type { RowKeys } from '../../integrity/row-authenticator.ts';

/** Keys for migrations over an empty schema: there is no row to compute a MAC for. */
const NO_ROWS: RowKeys = {
  rowMac: () => {
    throw new Error('an empty schema has no rows to vouch for');
  },
  keyTerm: 1,
  keyTerms: [1],
};

/** The `create` statements of `tables` (and their indexes) as migrations up to `version` left them. */
async function ddlAt(version: number, tables: readonly string[]): Promise<string[]> {
  const SQL = await loadSqlJs();
  const sqlite = new SQL.Database();
  const connection = new SqlJsConnection(sqlite, () => undefined);
  const db = new Kysely<Database>({
    dialect: new SqlJsDialect(
      () => Promise.resolve(connection),
      () => Promise.resolve(),
    ),
  });
  try {
    await SCHEMA_MIGRATIONS_DDL.execute(db);
    for (const migration of migrations) if (migration.version <= version) await migration.up(db, NO_ROWS);
    const names = tables.map((t) => `'${t}'`).join(', ');
    const rows = sqlite.exec(
      `select sql from sqlite_master where tbl_name in (${names}) and sql is not null order by type desc, name`,
    );
    return (rows[0]?.values ?? []).map((r) => String(r[0]));
  } finally {
    await db.destroy();
    sqlite.close();
  }
}

async function rowsOf(vault: VaultHandle) {
  // Through the audit store: a close moves the entries from the table to segment files.
  const audit = [];
  for (const tenant of (await vault.audit.tenants()).sort()) {
    for await (const row of vault.audit.entries(tenant)) audit.push(row);
  }
  const activity = await vault.db
    .selectFrom('token_activity')
    .selectAll()
    .orderBy('tenant_id')
    .orderBy('month')
    .orderBy('token_id')
    .execute();
  return { audit, activity };
}

async function indexedColumns(vault: VaultHandle, table: string): Promise<string[][]> {
  const indexes = await sql<{ name: string }>`select name from pragma_index_list(${table})`.execute(vault.db);
  const out: string[][] = [];
  for (const { name } of indexes.rows) {
    const cols = await sql<{ name: string }>`select name from pragma_index_info(${name})`.execute(vault.db);
    out.push(cols.rows.map((c) => c.name));
  }
  return out.sort();
}

describe('migration 10 (append-ordered audit and activity)', () => {
  let temp: TempVault | undefined;
  afterEach(async () => {
    await temp?.dispose();
    temp = undefined;
  });

  it('carries a vault file written at version 9 over with every row, and the chains still verify', async () => {
    const created = await createTempVault();
    temp = created;
    let vault: VaultHandle = created.vault;
    const services = createServices(vault, { passwordKdf: FAST_KDF });
    const { tenant } = await services.tenants.create({ name: 'Acme', withApplication: false }, null);
    const app = appIn(tenant.id, { permissions: ALL_TOKEN_PERMISSIONS });
    const out = (await services.tokens.tokenize(app, [
      'one',
      'two',
      { type: 'card_number', data: '4242424242424242' },
    ])) as [string, string, { id: string }];
    // No read: a read's entry now records `revealed`, which version 9 could not have written.
    expect(out).toHaveLength(3);

    // The file as version 9 wrote it: both tables rebuilt in their old shape, version 10 forgotten.
    const old = await ddlAt(9, ['audit_logs', 'token_activity']);
    await vault.transaction(async (trx) => {
      await sql`alter table audit_logs rename to audit_logs_now`.execute(trx);
      await sql`alter table token_activity rename to token_activity_now`.execute(trx);
      await sql`drop index audit_logs_tenant_created`.execute(trx);
      for (const ddl of old) await sql.raw(ddl).execute(trx);
      // The columns of version 9 only; migration 12 adds the later ones again.
      await sql`insert into audit_logs select id, tenant_id, seq, actor_id, actor_type, entity_type,
          entity_id, operation, message, created_at, prev_hash, hash
        from audit_logs_now order by rowid`.execute(trx);
      await sql`insert into token_activity select * from token_activity_now`.execute(trx);
      await sql`drop table audit_logs_now`.execute(trx);
      await sql`drop table token_activity_now`.execute(trx);
      await trx.deleteFrom('schema_migrations').where('version', 'in', [10, 12]).execute();
    });
    expect(await indexedColumns(vault, 'audit_logs')).toContainEqual(['id']);
    const before = await rowsOf(vault);
    expect(before.audit.length).toBeGreaterThanOrEqual(4);
    expect(before.activity.length).toBe(3);

    // Opening runs the migration; a second opening replays it from the journal.
    for (let i = 0; i < 2; i++) {
      await vault.close();
      vault = await openVault({ path: created.vaultPath, key: created.key, fs: unsyncedFs });
      temp = tempVaultIn(
        { ...created, cleanup: () => rm(created.dir, { recursive: true, force: true }) },
        vault,
      );
      // Migration 12's columns arrive empty on every carried row.
      expect(await rowsOf(vault)).toEqual({
        ...before,
        audit: before.audit.map((row) => ({ ...row, entity_ids: null, revealed: null })),
      });
      expect((await verifyAuditChains(vault.db, vault)).ok).toBe(true);
    }
    expect(await indexedColumns(vault, 'audit_logs')).toEqual([
      ['tenant_id', 'created_at'],
      ['tenant_id', 'seq'],
    ]);
    const activityDdl = await sql<{
      sql: string;
    }>`select sql from sqlite_master where name = 'token_activity'`.execute(vault.db);
    expect(activityDdl.rows[0]?.sql).toMatch(/without rowid/i);
    const versions = await vault.db.selectFrom('schema_migrations').select('version').execute();
    expect(versions.map((v) => v.version)).toContain(10);

    // Writes after it: new audit rows link on, a repeated activity mark is still ignored, a
    // duplicate (tenant, seq) is still refused, and deleting the tenant takes its activity rows.
    const again = createServices(vault, { passwordKdf: FAST_KDF });
    await again.tokens.tokenize(app, ['three']);
    await again.tokens.get(app, out[0]);
    expect((await verifyAuditChains(vault.db, vault)).ok).toBe(true);
    const after = await rowsOf(vault);
    expect(after.activity.length).toBe(4);
    // The newest entry: still in the table (older ones may be in segments), where (tenant, seq) is unique.
    const first = after.audit.at(-1)!;
    await expect(
      vault.transaction(async (trx) => {
        await trx
          .insertInto('audit_logs')
          .values({ ...first, id: 'another' })
          .execute();
      }),
    ).rejects.toThrow(/UNIQUE/);
    await vault.transaction(async (trx) => {
      await trx.deleteFrom('tenants').where('id', '=', tenant.id).execute();
    });
    expect(await vault.db.selectFrom('token_activity').selectAll().execute()).toEqual([]);
  });
});

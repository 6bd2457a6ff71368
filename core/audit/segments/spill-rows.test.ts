import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { appendAuditBatch } from '../audit-log.ts';
import type { AuditItem } from '../audit-log.ts';
import type { EmbeddedVault } from '../../backends/embedded/embedded-vault.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { createVault } from '../../vault/index.ts';
import { spillReader } from './spill-rows.ts';

/** Spills only when asked (compact), in blocks of the spiller's size. */
const HELD = { spillThresholdRows: 1_000_000, segmentRollBytes: 64 * 1024 };

function items(tenantId: string, n: number): AuditItem[] {
  return Array.from({ length: n }, (_, i) => ({
    principal: null,
    event: {
      tenantId,
      entityType: i % 3 === 0 ? 'card' : 'token',
      entityId: `tok-${i}`,
      operation: i % 5 === 0 ? 'update' : 'read',
      message: `Token "${i}" \\ ünïcode ✓`,
      ...(i % 7 === 0 ? { entityIds: [`tok-${i}`, `listed-${i}`] } : {}),
      ...(i % 5 === 0 ? {} : { revealed: i % 2 === 0 }),
    },
  }));
}

let tmp: TempDir | undefined;
let vault: EmbeddedVault | undefined;
afterEach(async () => {
  await vault?.close({ snapshot: false }).catch(() => undefined);
  await tmp?.cleanup();
  vault = undefined;
  tmp = undefined;
});

async function newVault(): Promise<EmbeddedVault> {
  tmp = await makeTempDir();
  vault = await createVault({ path: tmp.vaultPath, key: tmp.key, fs: unsyncedFs, auditSegments: HELD });
  return vault;
}

async function tableRows(v: EmbeddedVault): Promise<AuditLogsTable[]> {
  return v.db
    .selectFrom('audit_logs')
    .selectAll()
    .orderBy(sql`rowid`)
    .execute();
}

describe('the spiller reading audit_logs', () => {
  it('reads every column of the table, the BLOB ones as bytes', async () => {
    const v = await newVault();
    const reader = await spillReader(v.db);
    const columns = (
      await sql<{ name: string }>`select name from pragma_table_info('audit_logs')`.execute(v.db)
    ).rows;
    expect(reader.columns).toEqual(columns.map((c) => c.name));
    expect(reader.bytes).toEqual(['prev_hash', 'hash']);
  });

  it('moves blocks that decode to exactly the rows the table held, tenants interleaved', async () => {
    const v = await newVault();
    // Over one block, so blocks and read chunks both end mid-tenant.
    for (let i = 0; i < 20; i++) {
      await v.transaction((trx) => appendAuditBatch(trx, v, [...items('t1', 40), ...items('t2', 30)]));
    }
    const before = await tableRows(v);
    expect(before.length).toBeGreaterThan(1024);
    await v.compact();
    expect(await tableRows(v)).toHaveLength(0);
    for (const tenant of ['t1', 't2']) {
      const spilled: AuditLogsTable[] = [];
      for await (const row of v.audit.entries(tenant)) spilled.push(row);
      expect(spilled).toEqual(before.filter((r) => r.tenant_id === tenant));
    }
    expect(await v.audit.verify()).toMatchObject({ ok: true, tenants: 2 });
  });

  it('refuses a row whose bytes column holds text: nothing moves', async () => {
    const v = await newVault();
    await v.transaction((trx) => appendAuditBatch(trx, v, items('t1', 50)));
    await v.transaction((trx) => sql`UPDATE audit_logs SET hash = 'not bytes' WHERE seq = 20`.execute(trx));
    await expect(v.compact()).rejects.toMatchObject({ code: 'INTERNAL', message: /holds a string/ });
    expect(await tableRows(v)).toHaveLength(50);
    expect(await v.db.selectFrom('audit_segments').selectAll().execute()).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { appendAuditBatch } from '../audit-log.ts';
import type { AuditItem } from '../audit-log.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { makeTempSchema, postgresOrSkipNotice } from '../../test-support/postgres.ts';
import type { TempSchema } from '../../test-support/postgres.ts';
import { createTempVault } from '../../test-support/temp-vault.ts';
import type { TempVault } from '../../test-support/temp-vault.ts';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { exportToPostgres } from '../../vault/export-to-postgres.ts';
import { importFromPostgres } from '../../vault/import-from-postgres.ts';
import { backupVault, openVault, restoreVault } from '../../vault/index.ts';
import type { VaultHandle } from '../../vault/types.ts';

const SMALL = { spillThresholdRows: 50, segmentRollBytes: 4 * 1024 };
const available = await postgresOrSkipNotice(
  'core/audit/segments/segment-copies.test.ts (its PostgreSQL test)',
);

function reads(tenantId: string, n: number): AuditItem[] {
  return Array.from({ length: n }, (_, i) => ({
    principal: null,
    event: {
      tenantId,
      entityType: 'token',
      entityId: `tok-${i}`,
      operation: 'read' as const,
      message: 'Token read',
    },
  }));
}

async function entries(vault: VaultHandle): Promise<AuditLogsTable[]> {
  const rows: AuditLogsTable[] = [];
  for (const tenant of await vault.audit.tenants())
    for await (const row of vault.audit.entries(tenant)) rows.push(row);
  return rows;
}

let tmp: TempVault | undefined;
let schema: TempSchema | undefined;
afterEach(async () => {
  await tmp?.dispose();
  await schema?.drop();
  tmp = undefined;
  schema = undefined;
});

async function spilledVault(): Promise<{ vault: VaultHandle; log: AuditLogsTable[] }> {
  tmp = await createTempVault({ auditSegments: SMALL });
  const { vault } = tmp;
  await vault.transaction((trx) => appendAuditBatch(trx, vault, [...reads('t1', 300), ...reads('t2', 40)]));
  await vault.compact();
  await vault.transaction((trx) => appendAuditBatch(trx, vault, reads('t1', 10)));
  return { vault, log: await entries(vault) };
}

describe('copies of a vault carry its audit segments', () => {
  it('a backup restored elsewhere holds the same log', async () => {
    const { vault, log } = await spilledVault();
    await vault.close();
    const out = `${tmp!.dir}/backup.svc`;
    await backupVault({ path: tmp!.vaultPath, key: tmp!.key, out });
    const restored = `${tmp!.dir}/restored/vault.svc`;
    await restoreVault({ from: out, path: restored, key: tmp!.key });
    const copy = await openVault({ path: restored, key: tmp!.key, fs: unsyncedFs });
    try {
      expect(await entries(copy)).toEqual(log);
      expect(await copy.audit.verify()).toMatchObject({ ok: true, entries: 350 });
    } finally {
      await copy.close();
    }
  });

  it.skipIf(!available)('export to PostgreSQL and import back keep every entry', async () => {
    const { vault, log } = await spilledVault();
    schema = await makeTempSchema();
    try {
      const report = await exportToPostgres({
        source: vault,
        sourcePath: tmp!.vaultPath,
        key: tmp!.key,
        url: schema.url,
      });
      expect(report.rows.audit_logs).toBe(350);
    } finally {
      await vault.close();
    }
    const path = `${tmp!.dir}/imported/vault.svc`;
    const imported = await importFromPostgres({ url: schema.url, path, key: tmp!.key, replace: false });
    expect(imported.chains).toMatchObject({ ok: true, entries: 350 });
    const copy = await openVault({ path, key: tmp!.key, fs: unsyncedFs });
    try {
      const byChain = (rows: AuditLogsTable[]) =>
        [...rows]
          .sort((a, b) => a.tenant_id.localeCompare(b.tenant_id) || a.seq - b.seq)
          .map((r) => ({ ...r }));
      expect(byChain(await entries(copy))).toEqual(byChain(log));
    } finally {
      await copy.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { appendAuditBatch } from '../audit-log.ts';
import type { AuditItem } from '../audit-log.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { createVault, openVault } from '../../vault/index.ts';
import type { EmbeddedVault } from '../../vault/embedded-vault.ts';

function reads(tenantId: string, n: number, from = 0): AuditItem[] {
  return Array.from({ length: n }, (_, i) => ({
    principal: null,
    event: {
      tenantId,
      entityType: 'token',
      entityId: `tok-${from + i}`,
      operation: 'read' as const,
      message: 'Token read',
      revealed: (from + i) % 2 === 0,
    },
  }));
}

async function tableRows(vault: EmbeddedVault): Promise<number> {
  const row = await vault.db
    .selectFrom('audit_logs')
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('smoke', () => {
  it('spills and lists', async () => {
    const tmp = await makeTempDir();
    try {
      const vault = await createVault({
        path: tmp.vaultPath,
        key: tmp.key,
        fs: unsyncedFs,
        auditSpillThresholdRows: 100,
      });
      for (let i = 0; i < 30; i++) {
        await vault.transaction((trx) => appendAuditBatch(trx, vault, reads('t1', 50, i * 50)));
      }
      await vault.compact();
      expect(await tableRows(vault)).toBe(0);
      const page = await vault.audit.list('t1', {}, { offset: 0, limit: 5 });
      expect(page.total).toBe(1500);
      expect(page.items.map((e) => e.entity_id)).toEqual([
        'tok-1499',
        'tok-1498',
        'tok-1497',
        'tok-1496',
        'tok-1495',
      ]);
      expect(await vault.audit.verify()).toMatchObject({ ok: true, entries: 1500 });
      await vault.close();
      const again = await openVault({ path: tmp.vaultPath, key: tmp.key, fs: unsyncedFs });
      expect(await again.audit.verify()).toMatchObject({ ok: true, entries: 1500 });
      const filtered = await again.audit.list('t1', { entityId: 'tok-7' }, { offset: 0, limit: 5 });
      expect(filtered.total).toBe(1);
      await again.close();
    } finally {
      await tmp.cleanup();
    }
  });
});

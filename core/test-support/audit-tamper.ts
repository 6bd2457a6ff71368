import { SegmentedAuditStore } from '../audit/segments/segmented-store.ts';
import { viewOf } from '../audit/segments/segment-view.ts';
import type { AuditLogsTable } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';

/**
 * What someone with the vault's keys and its files could do to entries already moved to segment
 * files: every block's rows passed through `edit`, sealed again, each segment's new version
 * committed. For tests of verification; table rows are changed with SQL instead.
 */
export async function editAuditSegments(
  vault: VaultHandle,
  edit: (rows: AuditLogsTable[]) => AuditLogsTable[],
): Promise<void> {
  const store = vault.audit;
  if (!(store instanceof SegmentedAuditStore)) return;
  await store.work.run(async () => {
    const { records } = await vault.read(viewOf);
    for (const record of records) {
      if (record.committed_bytes === 0) continue;
      const next = await store.files.rewrite(record, (rows) => edit([...rows]));
      if (!next) throw new Error(`segment ${record.segment} does not open`);
      await vault.transaction((trx) =>
        trx
          .updateTable('audit_segments')
          .set({ generation: next.generation, committed_bytes: next.bytes })
          .where('segment', '=', record.segment)
          .execute(),
      );
      await store.retire(record.segment, record.generation);
    }
  });
}

/** Changes a stored entry wherever it is (the table, or a segment), as tampering would. */
export async function alterAuditEntry(
  vault: VaultHandle,
  id: string,
  change: Partial<AuditLogsTable>,
): Promise<void> {
  const updated = await vault.transaction((trx) =>
    trx.updateTable('audit_logs').set(change).where('id', '=', id).executeTakeFirst(),
  );
  if (Number(updated.numUpdatedRows) > 0) return;
  await editAuditSegments(vault, (rows) => rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
}

/** Removes a stored entry wherever it is, as tampering would. */
export async function removeAuditEntry(vault: VaultHandle, id: string): Promise<void> {
  const deleted = await vault.transaction((trx) =>
    trx.deleteFrom('audit_logs').where('id', '=', id).executeTakeFirst(),
  );
  if (Number(deleted.numDeletedRows) > 0) return;
  await editAuditSegments(vault, (rows) => rows.filter((row) => row.id !== id));
}

/** A tenant's stored entry with this `seq` (read through the vault's audit store). */
export async function auditEntryAt(
  vault: VaultHandle,
  tenantId: string,
  seq: number,
): Promise<AuditLogsTable> {
  for await (const row of vault.audit.entries(tenantId)) if (row.seq === seq) return row;
  throw new Error(`no audit entry ${seq} for ${tenantId}`);
}

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../access/principal.ts';
import { auditRows, openServicesFixture, seedTenant } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';
import { verifyAuditChains } from './audit-log.ts';
import { pruneReadEntries, startReadRetention } from './retention.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('read retention with checkpoints', () => {
  let f: ServicesFixture;
  let admin: Principal;
  let tenantId: string;
  let appId: string;

  beforeEach(async () => {
    f = await openServicesFixture();
    ({ principal: admin, tenantId } = await seedTenant(f.services));
    appId = (
      await f.services.applications.create(admin, {
        name: 'B',
        type: 'management',
        permissions: ['log:read'],
      })
    ).id;
  });
  afterEach(() => f.close());

  /** `n` audited reads of the application, one entry each. */
  async function reads(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await f.services.applications.get(admin, appId);
  }

  it('removes old reads only, keeps every change, and the chain still verifies', async () => {
    await reads(30);
    await f.services.applications.update(admin, appId, { name: 'B2', permissions: ['log:read'] });
    await reads(20);
    f.clock.advance(40 * DAY);
    await reads(5); // recent: kept
    const before = await auditRows(f.vault, tenantId);
    const result = await pruneReadEntries(f.vault, new Date(f.clock.now().getTime() - 30 * DAY));
    expect(result).toEqual({ entries: 50, checkpoints: 2 });
    const after = await auditRows(f.vault, tenantId);
    expect(after).toHaveLength(before.length - 50);
    expect(after.filter((r) => r.operation !== 'read')).toEqual(before.filter((r) => r.operation !== 'read'));
    expect(after.slice(-5).every((r) => r.operation === 'read')).toBe(true);
    expect(await verifyAuditChains(f.vault.db, f.vault)).toMatchObject({ ok: true, firstBreak: null });
    // New entries chain on as before; pruning again later merges with the earlier checkpoint.
    await reads(3);
    f.clock.advance(40 * DAY);
    await f.services.tenants.update(admin, { name: 'Acme 2' });
    expect(await pruneReadEntries(f.vault, new Date(f.clock.now().getTime() - 30 * DAY))).toEqual({
      entries: 8,
      checkpoints: 1,
    });
    expect(await f.vault.db.selectFrom('audit_checkpoints').selectAll().execute()).toHaveLength(2);
    expect(await verifyAuditChains(f.vault.db, f.vault)).toMatchObject({ ok: true });
  });

  it('still reports an entry removed without a checkpoint, a forged or altered checkpoint, and a removed change', async () => {
    await reads(10);
    await f.services.applications.update(admin, appId, { name: 'B2', permissions: ['log:read'] });
    await reads(10);
    f.clock.advance(40 * DAY);
    await f.services.tenants.get(admin);
    await pruneReadEntries(f.vault, new Date(f.clock.now().getTime() - 30 * DAY));
    const [first] = await f.vault.db
      .selectFrom('audit_checkpoints')
      .selectAll()
      .orderBy('first_seq')
      .execute();
    if (!first) throw new Error('no checkpoint');

    // A checkpoint widened to swallow the update that follows it: its MAC no longer holds.
    const update = (await auditRows(f.vault, tenantId)).find((r) => r.operation === 'update');
    if (!update) throw new Error('no update entry');
    await f.vault.transaction(async (trx) => {
      await trx
        .updateTable('audit_checkpoints')
        .set({ last_seq: update.seq, entries: update.seq - first.first_seq + 1 })
        .where('first_seq', '=', first.first_seq)
        .execute();
      await trx.deleteFrom('audit_logs').where('id', '=', update.id).execute();
    });
    const report = await verifyAuditChains(f.vault.db, f.vault);
    expect(report.ok).toBe(false);
    expect(report.firstBreak?.reason).toMatch(/missing/);

    // Restoring the checkpoint but deleting it outright: the gap is unexplained.
    await f.vault.transaction((trx) =>
      trx.deleteFrom('audit_checkpoints').where('first_seq', '=', first.first_seq).execute(),
    );
    expect((await verifyAuditChains(f.vault.db, f.vault)).firstBreak?.seq).toBe(first.first_seq);
  });

  it('never prunes the newest entry or anything but reads', async () => {
    f.clock.advance(40 * DAY);
    await reads(3);
    f.clock.advance(40 * DAY);
    const result = await pruneReadEntries(f.vault, f.clock.now());
    expect(result.entries).toBe(2);
    const rows = await auditRows(f.vault, tenantId);
    expect(rows.at(-1)?.operation).toBe('read');
    expect(await verifyAuditChains(f.vault.db, f.vault, tenantId)).toMatchObject({ ok: true });
  });

  it('a deleted tenant takes its checkpoints with it', async () => {
    await reads(3);
    await f.services.tenants.get(admin);
    f.clock.advance(40 * DAY);
    await pruneReadEntries(f.vault, f.clock.now());
    expect(await f.vault.db.selectFrom('audit_checkpoints').selectAll().execute()).not.toHaveLength(0);
    await f.services.tenants.delete(admin);
    expect(await f.vault.db.selectFrom('audit_checkpoints').selectAll().execute()).toHaveLength(0);
    expect(await verifyAuditChains(f.vault.db, f.vault)).toMatchObject({ ok: true });
  });

  it('while serving, prunes at start when a retention is set, and not at all with 0', async () => {
    await reads(4);
    await f.services.tenants.get(admin);
    f.clock.advance(40 * DAY);
    await f.services.tenants.get(admin);
    const errors: unknown[] = [];
    await startReadRetention(f.vault, 0, (e) => errors.push(e))();
    expect((await auditRows(f.vault, tenantId)).filter((r) => r.operation === 'read')).toHaveLength(6);
    const pruned: unknown[] = [];
    await startReadRetention(
      f.vault,
      30,
      (e) => errors.push(e),
      (r) => pruned.push(r),
    )();
    expect(pruned).toEqual([{ entries: 5, checkpoints: 1 }]);
    expect(errors).toEqual([]);
    expect(await verifyAuditChains(f.vault.db, f.vault)).toMatchObject({ ok: true });
  });
});

import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { appendAuditBatch } from '../audit-log.ts';
import type { AuditItem } from '../audit-log.ts';
import type { AuditOperation } from '../entity-types.ts';
import { entryMatches } from '../log-filter.ts';
import type { LogFilter } from '../log-filter.ts';
import { pruneReadEntries } from '../retention.ts';
import { vaultPaths } from '../../backends/embedded/paths.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { PowerLossFs, seededRandom } from '../../backends/embedded/test-support/power-loss-fs.ts';
import { editAuditSegments } from '../../test-support/audit-tamper.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { countingBlockReads } from './test-support/counting-block-reads.ts';
import { OPEN_INDEX_EVERY_BLOCKS } from './open-index.ts';
import { ManualClock } from '../../vault/clock.ts';
import { AUDIT_ROWS_SQL } from '../../backends/embedded/embedded-vault.ts';
import type { EmbeddedVault } from '../../backends/embedded/embedded-vault.ts';
import { createVault, openVault } from '../../vault/index.ts';
import type { OpenVaultOptions } from '../../vault/types.ts';

const DAY = 24 * 60 * 60 * 1000;
/** Small limits: a few hundred entries make several blocks and segments. */
const SMALL = { spillThresholdRows: 100, segmentRollBytes: 8 * 1024 };

function items(tenantId: string, n: number, from = 0, operation: AuditOperation = 'read'): AuditItem[] {
  return Array.from({ length: n }, (_, i) => ({
    principal: null,
    event: {
      tenantId,
      entityType: (from + i) % 3 === 0 ? 'card' : 'token',
      entityId: `tok-${from + i}`,
      operation,
      message: `Token ${operation}`,
      ...((from + i) % 7 === 0 ? { entityIds: [`tok-${from + i}`, `listed-${from + i}`] } : {}),
      ...(operation === 'read' ? { revealed: (from + i) % 2 === 0 } : {}),
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

async function chain(vault: EmbeddedVault, tenantId: string): Promise<AuditLogsTable[]> {
  const rows: AuditLogsTable[] = [];
  for await (const row of vault.audit.entries(tenantId)) rows.push(row);
  return rows;
}

let tmp: TempDir | undefined;
const open: EmbeddedVault[] = [];
afterEach(async () => {
  for (const vault of open.splice(0)) await vault.close({ snapshot: false }).catch(() => undefined);
  await tmp?.cleanup();
  tmp = undefined;
});

async function newVault(options: Partial<OpenVaultOptions> = {}): Promise<EmbeddedVault> {
  tmp = await makeTempDir();
  const vault = await createVault({
    path: tmp.vaultPath,
    key: tmp.key,
    fs: unsyncedFs,
    auditSegments: SMALL,
    ...options,
  });
  open.push(vault);
  return vault;
}

async function reopen(options: Partial<OpenVaultOptions> = {}): Promise<EmbeddedVault> {
  const vault = await openVault({
    path: tmp!.vaultPath,
    key: tmp!.key,
    fs: unsyncedFs,
    auditSegments: SMALL,
    ...options,
  });
  open.push(vault);
  return vault;
}

/** Spills `n` blocks, one per transaction (each just over the threshold). */
async function spillBlocks(vault: EmbeddedVault, n: number, from = 0): Promise<void> {
  for (let i = 0; i < n; i++) {
    const at = (from + i) * (SMALL.spillThresholdRows + 1);
    await vault.transaction((trx) =>
      appendAuditBatch(trx, vault, items('t1', SMALL.spillThresholdRows + 1, at)),
    );
    await vault.auditSettled();
  }
}

async function segmentsOf(vault: EmbeddedVault) {
  return vault.read((db) => db.selectFrom('audit_segments').selectAll().execute());
}

describe('the embedded audit log in segment files', () => {
  it('counts the table for the spiller from the ends of its rowid range, without reading the table', async () => {
    const vault = await newVault({ auditSegments: { ...SMALL, spillThresholdRows: 1_000_000 } });
    const count = async () =>
      Number((await sql.raw<{ n: number }>(AUDIT_ROWS_SQL).execute(vault.db)).rows[0]?.n);
    expect(await count()).toBe(0);
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 30)));
    expect(await count()).toBe(30);
    await vault.transaction((trx) => sql`DELETE FROM audit_logs WHERE rowid % 3 = 0`.execute(trx));
    const ends = await sql<{
      low: number;
      high: number;
    }>`SELECT min(rowid) AS low, max(rowid) AS high FROM audit_logs`.execute(vault.db);
    expect(await count()).toBe(ends.rows[0]!.high - ends.rows[0]!.low + 1);
    const plan = await sql.raw<{ detail: string }>(`EXPLAIN QUERY PLAN ${AUDIT_ROWS_SQL}`).execute(vault.db);
    expect(plan.rows.map((r) => r.detail)).not.toContain('SCAN audit_logs');
    expect(plan.rows.filter((r) => r.detail.startsWith('SEARCH audit_logs'))).toHaveLength(2);
  });

  it('lists, filters and pages across segments and the table as the table alone would', async () => {
    const vault = await newVault();
    for (let i = 0; i < 12; i++) {
      await vault.transaction((trx) =>
        appendAuditBatch(trx, vault, [...items('t1', 40, i * 40), ...items('t2', 5, i * 5, 'update')]),
      );
      await vault.auditSettled();
    }
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 30, 480, 'create')));
    const [spilled] = await vault.read((db) => db.selectFrom('audit_segments').selectAll().execute());
    expect(spilled).toBeDefined();
    expect(await tableRows(vault)).toBeLessThanOrEqual(SMALL.spillThresholdRows + 30);
    const all = (await chain(vault, 't1')).reverse();
    expect(all).toHaveLength(510);
    const filters: LogFilter[] = [
      {},
      { operation: 'read' },
      { entityType: 'card' },
      { entityId: 'tok-14' },
      { entityId: 'listed-21' },
      { entityId: 'nowhere' },
      { operation: 'create', entityType: 'token' },
      { actorType: 'operator' },
      { startDate: '2000-01-01T00:00:00.000Z', endDate: '2999-01-01T00:00:00.000Z' },
    ];
    for (const filter of filters) {
      const expected = all.filter((r) => entryMatches(r, filter)).map((r) => r.id);
      for (const page of [
        { offset: 0, limit: 7 },
        { offset: 25, limit: 50 },
        { offset: 100, limit: 1000 },
      ]) {
        const got = await vault.audit.list('t1', filter, page);
        expect(got.total).toBe(expected.length);
        expect(got.items.map((e) => e.id)).toEqual(expected.slice(page.offset, page.offset + page.limit));
      }
    }
    const newest = (await vault.audit.list('t1', { entityId: 'listed-21' }, { offset: 0, limit: 1 }))
      .items[0];
    expect(newest).toMatchObject({ entity_ids: ['tok-21', 'listed-21'], revealed: false });
    expect(await vault.audit.verify()).toMatchObject({ ok: true, tenants: 2, entries: 510 + 60 });
    expect(await vault.audit.count()).toBe(570);
  });

  it('keeps at most the threshold of entries in memory however many reads come', async () => {
    const vault = await newVault();
    let most = 0;
    for (let i = 0; i < 40; i++) {
      await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 25, i * 25)));
      await vault.auditSettled();
      most = Math.max(most, await tableRows(vault));
    }
    expect(most).toBeLessThanOrEqual(SMALL.spillThresholdRows);
    expect(await vault.audit.count()).toBe(1000);
    expect(await vault.audit.verify()).toMatchObject({ ok: true, entries: 1000 });
    // Each read entry takes well under 200 bytes on disk.
    const segments = await vault.read((db) => db.selectFrom('audit_segments').selectAll().execute());
    const bytes = segments.reduce((sum, s) => sum + s.committed_bytes, 0);
    expect(bytes / (1000 - (await tableRows(vault)))).toBeLessThan(200);
  });

  it('reopens with the same log; a snapshot no longer carries spilled entries', async () => {
    const vault = await newVault();
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 300)));
    await vault.close();
    const again = await reopen();
    expect(await tableRows(again)).toBe(0);
    expect(await again.audit.count()).toBe(300);
    expect(await again.audit.verify()).toMatchObject({ ok: true, entries: 300 });
    expect((await again.audit.list('t1', {}, { offset: 0, limit: 1 })).items[0]?.entity_id).toBe('tok-299');
  });

  it('a tenant deletion hides its spilled entries; the new chain verifies', async () => {
    const vault = await newVault();
    await vault.transaction((trx) => appendAuditBatch(trx, vault, [...items('t1', 150), ...items('t2', 20)]));
    await vault.compact();
    await vault.transaction(async (trx) => {
      await vault.audit.dropChain(trx, 't1');
      await appendAuditBatch(trx, vault, items('t1', 1, 0, 'delete'));
    });
    expect(await vault.audit.list('t1', {}, { offset: 0, limit: 10 })).toMatchObject({ total: 1 });
    expect(await vault.audit.verify()).toMatchObject({ ok: true, tenants: 2, entries: 21 });
    await vault.compact();
    expect(await vault.audit.verify('t1')).toMatchObject({ ok: true, entries: 1 });
    expect(await vault.audit.count()).toBe(21);
  });

  it('read retention removes old reads from segments behind checkpoints', async () => {
    const clock = new ManualClock();
    const vault = await newVault({ clock });
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 200)));
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 3, 200, 'update')));
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 200, 203)));
    await vault.compact();
    clock.advance(40 * DAY);
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 50, 403)));
    const before = await vault.read((db) => db.selectFrom('audit_segments').selectAll().execute());
    const result = await pruneReadEntries(vault, new Date(clock.now().getTime() - 30 * DAY));
    expect(result).toEqual({ entries: 400, checkpoints: 2 });
    expect(await vault.audit.count()).toBe(53);
    expect(await vault.audit.verify()).toMatchObject({ ok: true, entries: 53 });
    const after = await vault.read((db) => db.selectFrom('audit_segments').selectAll().execute());
    const bytes = (rows: typeof before) => rows.reduce((sum, s) => sum + s.committed_bytes, 0);
    expect(bytes(after)).toBeLessThan(bytes(before) / 10);
    expect(await pruneReadEntries(vault, new Date(clock.now().getTime() - 30 * DAY))).toEqual({
      entries: 0,
      checkpoints: 0,
    });
    await vault.close();
    const again = await reopen({ clock });
    expect(await again.audit.verify()).toMatchObject({ ok: true, entries: 53 });
  });

  it('verification names an altered, a removed and a reordered entry inside a segment', async () => {
    const vault = await newVault();
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 120)));
    await vault.compact();
    const target = (await chain(vault, 't1'))[40]!;
    await editAuditSegments(vault, (rows) =>
      rows.map((r) => (r.id === target.id ? { ...r, message: 'x' } : r)),
    );
    expect((await vault.audit.verify()).firstBreak).toMatchObject({
      seq: 41,
      entryId: target.id,
      reason: 'its contents were altered',
    });
    await editAuditSegments(vault, (rows) =>
      rows.map((r) => (r.id === target.id ? { ...r, message: target.message } : r)),
    );
    expect(await vault.audit.verify()).toMatchObject({ ok: true });
    await editAuditSegments(vault, (rows) => rows.filter((r) => r.seq !== 60));
    expect((await vault.audit.verify()).firstBreak).toMatchObject({
      seq: 60,
      reason: 'entry 60 is missing (found 61 next)',
    });
  });

  it('verification names reordered entries, and a block that does not decrypt is damage, not a crash', async () => {
    const vault = await newVault();
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 120)));
    await vault.compact();
    await editAuditSegments(vault, (rows) => {
      const i = rows.findIndex((r) => r.seq === 30);
      if (i < 0) return rows;
      const out = [...rows];
      [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
      return out;
    });
    expect((await vault.audit.verify()).firstBreak).toMatchObject({ seq: 30 });
    await vault.close();
    const [segment] = await (async () => {
      const v = await reopen();
      const rows = await v.read((db) => db.selectFrom('audit_segments').selectAll().execute());
      await v.close({ snapshot: false });
      open.splice(open.indexOf(v), 1);
      return rows;
    })();
    const path = `${vaultPaths(tmp!.vaultPath).auditSegments}/${String(segment!.segment).padStart(6, '0')}.${segment!.generation}.seg`;
    const { open: openFile } = await import('node:fs/promises');
    const file = await openFile(path, 'r+');
    // Every bit of one sealed byte flipped: writing a fixed value left the block as it was whenever
    // the byte already held it (one run in 256).
    const byte = Buffer.alloc(1);
    await file.read(byte, 0, 1, 40);
    await file.write(Buffer.from([byte[0]! ^ 0xff]), 0, 1, 40);
    await file.close();
    const damaged = await reopen();
    const report = await damaged.audit.verify();
    expect(report.ok).toBe(false);
    expect(report.firstBreak?.reason).toMatch(
      /block 0 of audit segment 1 cannot be read: it was damaged or altered/,
    );
    expect((await damaged.audit.list('t1', {}, { offset: 0, limit: 5 })).items).toBeDefined();
  });

  it('a crash between a segment append and its commit: the rows stay, the extra bytes are cut at open', async () => {
    const key = { kind: 'key' as const, key: new Uint8Array(32).fill(7) };
    const path = '/machine/vault.svc';
    const machine = new PowerLossFs(seededRandom(1), true);
    const vault = await createVault({
      path,
      key,
      fs: machine,
      auditSegments: { ...SMALL, segmentRollBytes: 1 << 30 },
    });
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 120)));
    await vault.auditSettled();
    const committed = (await vault.read((db) => db.selectFrom('audit_segments').selectAll().execute()))[0]!;
    expect(committed.committed_bytes).toBeGreaterThan(0);
    // The next spill's block reaches the disk, then the power goes before its transaction commits.
    const segmentFile = `${vaultPaths(path).auditSegments}/000001.0.seg`;
    let synced = false;
    machine.injectFault((op, file) => {
      if (file === segmentFile && op === 'sync') synced = true;
      else if (synced && op === 'write') return 'EIO';
      return null;
    });
    await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 120, 120)));
    await vault.auditSettled();
    expect(synced).toBe(true);
    const rebooted = machine.reboot(seededRandom(2), true);
    expect(rebooted.peek(segmentFile)!.length).toBeGreaterThan(committed.committed_bytes);
    await rebooted.unlink(vaultPaths(path).lock);
    const again = await openVault({ path, key, fs: rebooted, auditSegments: SMALL });
    expect(rebooted.peek(segmentFile)!.length).toBe(committed.committed_bytes);
    expect(await tableRows(again)).toBe(120);
    expect(await again.audit.verify()).toMatchObject({ ok: true, entries: 240 });
    await again.compact();
    expect(await tableRows(again)).toBe(0);
    expect(await again.audit.verify()).toMatchObject({ ok: true, entries: 240 });
    await again.close();
  });

  it("the spiller keeps the open segment's index: an open reads only the blocks it does not list yet", async () => {
    const unrolled = { ...SMALL, segmentRollBytes: 1 << 30 };
    const vault = await newVault({ auditSegments: unrolled });
    const blocks = OPEN_INDEX_EVERY_BLOCKS + 3;
    await spillBlocks(vault, blocks);
    const [record] = await segmentsOf(vault);
    expect(vault.audit.files.blocksOf(record!)).toHaveLength(blocks);
    await vault.close({ snapshot: false }); // as a crash would: the index lists the first 16 blocks
    open.splice(0);
    const afterCrash = countingBlockReads(unsyncedFs);
    const again = await reopen({ auditSegments: unrolled, fs: afterCrash.fs });
    expect(afterCrash.whole()).toBe(3);
    const listed = again.audit.files.blocksOf(record!);
    await spillBlocks(again, 2, blocks);
    await again.close(); // writes the index of every block
    open.splice(0);
    const afterClose = countingBlockReads(unsyncedFs);
    const third = await reopen({ auditSegments: unrolled, fs: afterClose.fs });
    expect(afterClose.whole()).toBe(0);
    const [grown] = await segmentsOf(third);
    const all = third.audit.files.blocksOf(grown!);
    expect(all.slice(0, blocks)).toEqual(listed);
    expect(await third.audit.verify()).toMatchObject({ ok: true, entries: (blocks + 2) * 101 });
    await third.close({ snapshot: false });
    open.splice(0);
    // A full scan lists the same.
    const oidx = `${vaultPaths(tmp!.vaultPath).auditSegments}/000001.0.oidx`;
    await unsyncedFs.unlink(oidx);
    const scanned = countingBlockReads(unsyncedFs);
    const fourth = await reopen({ auditSegments: unrolled, fs: scanned.fs });
    expect(scanned.whole()).toBe(blocks + 2);
    expect(fourth.audit.files.blocksOf(grown!)).toEqual(all);
  });

  it('an index write that fails: the spills stand, the next open reads the blocks the index missed', async () => {
    const key = { kind: 'key' as const, key: new Uint8Array(32).fill(3) };
    const path = '/machine/vault.svc';
    const limits = { ...SMALL, segmentRollBytes: 1 << 30 };
    const machine = new PowerLossFs(seededRandom(5), true);
    const vault = await createVault({ path, key, fs: machine, auditSegments: limits });
    await spillBlocks(vault, OPEN_INDEX_EVERY_BLOCKS);
    machine.injectFault((op, file) => (file.endsWith('.oidx.tmp') && op !== 'sync' ? 'EIO' : null));
    await spillBlocks(vault, OPEN_INDEX_EVERY_BLOCKS + 2, OPEN_INDEX_EVERY_BLOCKS);
    expect(await tableRows(vault)).toBeLessThanOrEqual(SMALL.spillThresholdRows);
    const entries = (2 * OPEN_INDEX_EVERY_BLOCKS + 2) * (SMALL.spillThresholdRows + 1);
    expect(await vault.audit.count()).toBe(entries);
    await vault.close({ snapshot: false });
    machine.injectFault(null);
    const counted = countingBlockReads(machine);
    const again = await openVault({ path, key, fs: counted.fs, auditSegments: limits });
    expect(counted.whole()).toBe(OPEN_INDEX_EVERY_BLOCKS + 2);
    expect(await again.audit.verify()).toMatchObject({ ok: true, entries });
    await again.close();
  });

  it('after a power loss anywhere in spills, the open lists what a full scan lists and the log verifies', async () => {
    const key = { kind: 'key' as const, key: new Uint8Array(32).fill(4) };
    const path = '/machine/vault.svc';
    const limits = { ...SMALL, segmentRollBytes: 1 << 30 };
    const oidx = `${vaultPaths(path).auditSegments}/000001.0.oidx`;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const rng = seededRandom(seed);
      const machine = new PowerLossFs(rng, false);
      const vault = await createVault({ path, key, fs: machine, auditSegments: limits });
      await spillBlocks(vault, OPEN_INDEX_EVERY_BLOCKS + 1);
      // The next blocks take about ten file operations each: the power goes in one of them.
      machine.crashAfter(1 + Math.floor(rng() * 200));
      await spillBlocks(vault, OPEN_INDEX_EVERY_BLOCKS + 4, OPEN_INDEX_EVERY_BLOCKS + 1).catch(
        () => undefined,
      );
      expect(machine.crashed).toBe(true);
      const rebooted = machine.reboot(seededRandom(seed + 100), false);
      await rebooted.unlink(vaultPaths(path).lock).catch(() => undefined);
      const again = await openVault({ path, key, fs: rebooted, auditSegments: limits });
      const [record] = await segmentsOf(again);
      const listed = again.audit.files.blocksOf(record!);
      expect(await again.audit.verify()).toMatchObject({ ok: true });
      await again.close({ snapshot: false });
      await rebooted.unlink(oidx).catch(() => undefined);
      const scan = await openVault({ path, key, fs: rebooted, auditSegments: limits });
      expect(scan.audit.files.blocksOf(record!)).toEqual(listed);
      await scan.close({ snapshot: false });
    }
  });

  it('a vault written before segments opens, moves its entries out in the background, and verifies the same', async () => {
    const vault = await newVault({ auditSegments: { spillThresholdRows: 1_000_000 } });
    for (let i = 0; i < 5; i++)
      await vault.transaction((trx) => appendAuditBatch(trx, vault, items('t1', 200, i * 200)));
    const listed = await vault.audit.list('t1', { entityType: 'card' }, { offset: 3, limit: 20 });
    // The file as the version before segments wrote it: no bookkeeping tables, migration 13 not run.
    await vault.transaction(async (trx) => {
      await sql`drop table audit_segments`.execute(trx);
      await sql`drop table audit_epochs`.execute(trx);
      await trx.deleteFrom('schema_migrations').where('version', '=', 13).execute();
    });
    await vault.close({ snapshot: false });
    open.splice(0);
    const again = await reopen();
    await again.auditSettled();
    expect(await tableRows(again)).toBeLessThanOrEqual(SMALL.spillThresholdRows);
    expect(await again.audit.verify()).toMatchObject({ ok: true, entries: 1000 });
    expect(await again.audit.list('t1', { entityType: 'card' }, { offset: 3, limit: 20 })).toEqual(listed);
  });
});

import { readFile, truncate, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSodium } from '../../crypto/sodium.ts';
import type { StorageFs } from '../../backends/embedded/storage-fs.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { makeTempDir } from '../../test-support/temp-vault.ts';
import type { TempDir } from '../../test-support/temp-vault.ts';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { encodeIndex } from './block-codec.ts';
import { countingBlockReads } from './test-support/counting-block-reads.ts';
import { tableOfRows } from './block-rows.ts';
import type { BlockSummary } from './block-summary.ts';
import { indexable } from './open-index.ts';
import { SegmentFiles } from './segment-files.ts';
import type { SegmentRecord } from './segment-files.ts';

const KEY = new Uint8Array(32).fill(5);
const sodium = await loadSodium();

/** Rows of block `n`: two tenants, each entry about its own id. */
function rows(n: number): AuditLogsTable[] {
  return Array.from({ length: 40 }, (_, i) => ({
    id: `id-${n}-${i}`,
    tenant_id: i % 4 === 0 ? 't2' : 't1',
    seq: n * 40 + i + 1,
    actor_id: 'app-1',
    actor_type: 'application',
    entity_type: 'token',
    entity_id: `tok-${n}-${i}`,
    operation: i % 5 === 0 ? 'update' : 'read',
    message: 'Token read',
    created_at: `2026-01-01T00:${String(n).padStart(2, '0')}:${String(i).padStart(2, '0')}.000Z`,
    entity_ids: null,
    revealed: 0,
    prev_hash: new Uint8Array(32).fill(i),
    hash: new Uint8Array(32).fill(i + 1),
  }));
}

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('svc-open-index-');
});
afterEach(async () => {
  await tmp.cleanup();
});

const filesOn = (fs: StorageFs = unsyncedFs, vaultId = 'vault-1') =>
  new SegmentFiles(sodium, fs, tmp.dir, vaultId, () => KEY);

/** Segment 1, generation 0, as the spiller writes it: blocks appended, the record following. */
class Writer {
  readonly files = filesOn();
  readonly blocks: BlockSummary[] = [];
  record: SegmentRecord = { segment: 1, generation: 0, committed_bytes: 0, rolled: 0 };

  async append(n: number): Promise<this> {
    for (let i = 0; i < n; i++) {
      const at = this.record.committed_bytes;
      const block = await this.files.append(1, 0, at, tableOfRows(rows(this.blocks.length)), () => 0);
      this.blocks.push(block);
      this.record = { ...this.record, committed_bytes: at + block.length };
    }
    return this;
  }

  async indexed(): Promise<this> {
    await this.files.refreshOpenIndex(this.record, 1);
    return this;
  }
}

const path = (ext: 'seg' | 'idx' | 'oidx', generation = 0) => filesOn().path(1, generation, ext);

/**
 * A fresh open of `record`: what it lists, and how many blocks it read whole (the open index
 * spares every block it lists all but its frame head).
 */
async function opened(record: SegmentRecord): Promise<{ blocks: readonly BlockSummary[]; whole: number }> {
  const { fs, whole } = countingBlockReads(unsyncedFs);
  const files = filesOn(fs);
  await files.open([record]);
  const blocks = files.blocksOf(record);
  await files.close();
  return { blocks, whole: whole() };
}

/** The open of a full scan (no open index), which writes the index again. */
async function scanned(record: SegmentRecord): Promise<readonly BlockSummary[]> {
  await unsyncedFs.unlink(path('oidx')).catch(() => undefined);
  const { blocks, whole } = await opened(record);
  expect(whole).toBeGreaterThan(0);
  return blocks;
}

describe("an open segment's index", () => {
  it('spares the open every block it lists, which lists what a full scan lists', async () => {
    const w = await (await new Writer().append(6)).indexed();
    await w.files.close();
    expect(await opened(w.record)).toEqual({ blocks: w.blocks, whole: 0 });
    expect(await scanned(w.record)).toEqual(w.blocks);
    // The scan wrote the index again.
    expect((await opened(w.record)).whole).toBe(0);
  });

  it('an older index (fewer blocks) is used as far as it lists; the rest is read', async () => {
    const w = await (await new Writer().append(3)).indexed();
    const older = await readFile(path('oidx'));
    await (await w.append(3)).indexed();
    await w.files.close();
    await writeFile(path('oidx'), older);
    expect(await opened(w.record)).toEqual({ blocks: w.blocks, whole: 3 });
    expect(await scanned(w.record)).toEqual(w.blocks);
  });

  it('a damaged, emptied or foreign index means a full scan, never an error', async () => {
    const w = await (await new Writer().append(6)).indexed();
    await w.files.writeIndex(w.record);
    await w.files.close();
    const good = await readFile(path('oidx'));
    const flipped = Buffer.from(good);
    flipped[good.length >> 1]! ^= 0x01;
    const seal = (vaultId: string, generation: number, kind: 'open' | 'rolled') =>
      encodeIndex(sodium, KEY, vaultId, 1, generation, w.blocks, kind);
    const variants = [
      flipped,
      good.subarray(0, 40),
      Buffer.alloc(0),
      await readFile(path('idx')), // the rolled index of the same blocks
      await seal('vault-2', 0, 'open'),
      await seal('vault-1', 1, 'open'),
      await seal('vault-1', 0, 'rolled'),
    ];
    for (const bytes of variants) {
      await writeFile(path('oidx'), bytes);
      expect(await opened(w.record)).toEqual({ blocks: w.blocks, whole: 6 });
    }
    await writeFile(path('oidx'), await seal('vault-1', 0, 'open'));
    expect((await opened(w.record)).whole).toBe(0);
  });

  it('an index made with the key but not matching the file is used only as far as it matches', async () => {
    const w = await (await new Writer().append(6)).indexed();
    await w.files.close();
    const b = w.blocks;
    const lists: Array<[readonly unknown[], number]> = [
      [[b[0], b[2], b[3]], 1], // a gap
      [[b[0], b[1], { ...b[2]!, length: b[2]!.length + 1 }, b[3]], 2], // another length
      [[b[0], { ...b[1]!, nonce: b[2]!.nonce }, b[2]], 1], // another block's nonce
      [[b[0], { ...b[1]!, nonce: undefined }, b[2]], 1],
      [[b[0], { ...b[1]!, damaged: true }, b[2]], 1],
      [[b[1], b[2]], 0], // not from the start
      [[b[0], 'block', b[1]], 1],
    ];
    for (const [list, kept] of lists) {
      await writeFile(path('oidx'), await encodeIndex(sodium, KEY, 'vault-1', 1, 0, list, 'open'));
      expect(await opened(w.record)).toEqual({ blocks: w.blocks, whole: 6 - kept });
    }
  });

  it('lists no block past the committed length, which is cut as before', async () => {
    const w = await (await new Writer().append(6)).indexed();
    await w.files.close();
    const record = { ...w.record, committed_bytes: w.blocks[3]!.offset + w.blocks[3]!.length };
    expect(await opened(record)).toEqual({ blocks: w.blocks.slice(0, 4), whole: 0 });
    expect((await readFile(path('seg'))).length).toBe(record.committed_bytes);
    expect(await scanned(record)).toEqual(w.blocks.slice(0, 4));
  });

  it('a block written again at the same place is read, not taken from the index', async () => {
    const w = await (await new Writer().append(4)).indexed();
    // The last block's transaction rolled back (cut), then the same rows spilled again.
    const last = w.blocks.pop()!;
    await w.files.discard(1, 0, last.offset);
    w.record = { ...w.record, committed_bytes: last.offset };
    await w.append(1);
    await w.files.close();
    const again = w.blocks.at(-1)!;
    expect(again.length).toBe(last.length);
    expect(again.nonce).not.toBe(last.nonce);
    expect(await opened(w.record)).toEqual({ blocks: w.blocks, whole: 1 });
  });

  it('a segment file cut short lists the damage a full scan lists', async () => {
    const w = await (await new Writer().append(6)).indexed();
    await w.files.close();
    await truncate(path('seg'), w.blocks[4]!.offset + 10);
    const expected = [
      ...w.blocks.slice(0, 4),
      {
        offset: w.blocks[4]!.offset,
        length: w.record.committed_bytes - w.blocks[4]!.offset,
        tenants: {},
        damaged: true,
      },
    ];
    // The block the file ends in is read (and found short), not taken from the index.
    expect(await opened(w.record)).toEqual({ blocks: expected, whole: 1 });
    expect(await scanned(w.record)).toEqual(expected);
  });

  it("a retention rewrite of an open segment writes its new version's open index", async () => {
    const w = await (await new Writer().append(5)).indexed();
    const next = await w.files.rewrite(w.record, (kept) => kept.filter((r) => r.operation !== 'update'));
    expect(next).toMatchObject({ generation: 1 });
    const record = { ...w.record, generation: 1, committed_bytes: next!.bytes };
    const blocks = w.files.blocksOf(record);
    await w.files.close();
    expect(await opened(record)).toEqual({ blocks, whole: 0 });
  });

  it('lists blocks from offset 0 on, contiguous, each with its nonce, up to the first damaged one', () => {
    const at = (offset: number, extra: Partial<BlockSummary> = {}): BlockSummary => ({
      offset,
      length: 100,
      tenants: {},
      nonce: `n${offset}`,
      ...extra,
    });
    expect(indexable([at(0), at(100), at(200, { damaged: true }), at(300)])).toEqual([at(0), at(100)]);
    expect(indexable([at(0), at(100, { nonce: undefined }), at(200)])).toEqual([at(0)]);
    expect(indexable([at(0), at(200)])).toEqual([at(0)]);
    expect(indexable([at(100)])).toEqual([]);
  });
});

import { join } from 'node:path';
import type { Sodium } from '../../crypto/sodium.ts';
import type { AuditLogsTable, AuditSegmentsTable } from '../../storage/schema.ts';
import { errnoOf } from '../../backends/embedded/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../../backends/embedded/storage-fs.ts';
import {
  FRAME_HEADER_BYTES,
  decodeBlock,
  decodeBlockTenants,
  decodeIndex,
  encodeIndex,
  encodeTable,
  frameLength,
  nonceOf,
} from './block-codec.ts';
import { tableOfRows } from './block-rows.ts';
import type { RowTable } from './block-rows.ts';
import type { DecodedBlock, IndexKind } from './block-codec.ts';
import type { BlockSummary, TenantSummary } from './block-summary.ts';
import { indexable, matchingBlocks, replaceFile } from './open-index.ts';
import { openEmpty, readExactly, unlinkIfPresent } from './segment-io.ts';

/** Decoded blocks kept in memory for pages and verification that come back to them. */
const DECODED_CACHE_BLOCKS = 8;

export type SegmentRecord = AuditSegmentsTable;

/**
 * The files of a segment version: `seg` its blocks, `idx` a rolled segment's index, `oidx` the
 * index of a segment still appended to (core/audit/segments/open-index.ts).
 */
export type SegmentFileKind = 'seg' | 'idx' | 'oidx';

/** Where a segment file version and its indexes live inside the segments folder. */
export function segmentFileName(segment: number, generation: number, ext: SegmentFileKind): string {
  return `${String(segment).padStart(6, '0')}.${generation}.${ext}`;
}

const keyOf = (segment: number, generation: number) => `${segment}:${generation}`;

/**
 * The segment files of one vault and the summaries of their blocks (in memory: small, and all a
 * listing needs to skip blocks). Which bytes count is decided by the `audit_segments` rows of the
 * caller's transaction; this class only writes, reads and cuts files. Appends come from one writer
 * at a time (the spiller or a retention rewrite, serialized by the store).
 */
export class SegmentFiles {
  private readonly indexes = new Map<string, BlockSummary[]>();
  /** Per unrolled segment version: how many blocks its open index file lists (as far as known). */
  private readonly openListed = new Map<string, number>();
  private readonly decoded = new Map<string, Promise<DecodedBlock | null>>();
  private writer: { segment: number; generation: number; handle: StorageHandle } | null = null;
  private made = false;

  constructor(
    private readonly sodium: Sodium,
    private readonly fs: StorageFs,
    readonly dir: string,
    private readonly vaultId: string,
    private readonly key: () => Uint8Array,
  ) {}

  path(segment: number, generation: number, ext: SegmentFileKind): string {
    return join(this.dir, segmentFileName(segment, generation, ext));
  }

  /**
   * Loads the summaries of every committed segment: a rolled one's from its index file, an open
   * one's from its open index as far as it still matches, the blocks after that read from the
   * file (the open index is then written again). Bytes of the open segment past its committed
   * length (a spill whose transaction never committed; its rows are still in the table) are cut.
   * Files of versions no row names any more (a rewrite or a drop that committed, then crashed
   * before removing them) are removed.
   */
  async open(records: readonly SegmentRecord[]): Promise<void> {
    for (const record of records) {
      if (record.generation > 0) {
        for (const ext of ['seg', 'idx', 'oidx'] as const)
          await unlinkIfPresent(this.fs, this.path(record.segment, record.generation - 1, ext));
      }
      if (record.committed_bytes === 0) {
        await this.remove(record.segment, record.generation);
        continue;
      }
      const key = keyOf(record.segment, record.generation);
      if (record.rolled === 1) {
        // Left behind when a crash came between the roll's commit and its removal.
        await unlinkIfPresent(this.fs, this.path(record.segment, record.generation, 'oidx'));
        this.indexes.set(key, (await this.readIndex(record, 'rolled')) ?? (await this.scan(record)));
        continue;
      }
      const listed = await this.cutAndMatch(record);
      this.indexes.set(key, await this.scan(record, listed));
      this.openListed.set(key, listed.length);
      await this.refreshOpenIndex(record, 1);
    }
  }

  /** Summaries of the committed blocks of a segment version (offset + length within its bytes). */
  blocksOf(record: SegmentRecord): readonly BlockSummary[] {
    const all = this.indexes.get(keyOf(record.segment, record.generation)) ?? [];
    return all.filter((b) => b.offset + b.length <= record.committed_bytes);
  }

  /** A block's rows, or null when it does not open (damaged or altered). */
  read(record: SegmentRecord, block: BlockSummary): Promise<DecodedBlock | null> {
    if (block.damaged) return Promise.resolve(null);
    const cacheKey = `${record.segment}:${record.generation}:${block.offset}`;
    const hit = this.decoded.get(cacheKey);
    if (hit) {
      this.decoded.delete(cacheKey);
      this.decoded.set(cacheKey, hit);
      return hit;
    }
    const loading = this.readBlock(record.segment, record.generation, block);
    this.decoded.set(cacheKey, loading);
    if (this.decoded.size > DECODED_CACHE_BLOCKS) this.decoded.delete(this.decoded.keys().next().value!);
    return loading;
  }

  /**
   * Appends rows as one block at `offset` of a segment version (a new version starts empty) and
   * syncs it; the block counts once a transaction records `offset + length` as committed. The
   * table's rows are handed over (the encoding edits them).
   */
  async append(
    segment: number,
    generation: number,
    offset: number,
    table: RowTable,
    epochOf: (tenantId: string) => number,
  ): Promise<BlockSummary> {
    const place = { vaultId: this.vaultId, segment, generation, offset };
    const { frame, tenants } = await encodeTable(this.sodium, this.key(), place, table, epochOf);
    const handle = await this.writerFor(segment, generation, offset === 0);
    await handle.write(frame, 0, frame.length, offset);
    await handle.datasync();
    const block: BlockSummary = { offset, length: frame.length, tenants, nonce: nonceOf(frame) };
    const key = keyOf(segment, generation);
    // A version written from its start again (a retention rewrite that did not commit, retried).
    if (offset === 0) this.openListed.delete(key);
    const blocks = (this.indexes.get(key) ?? []).filter((b) => b.offset < offset);
    blocks.push(block);
    this.indexes.set(key, blocks);
    return block;
  }

  /** Forgets blocks at or after `length` of a segment version and cuts its file there. */
  async discard(segment: number, generation: number, length: number): Promise<void> {
    const key = keyOf(segment, generation);
    this.indexes.set(
      key,
      (this.indexes.get(key) ?? []).filter((b) => b.offset + b.length <= length),
    );
    const handle = await this.writerFor(segment, generation, false);
    await handle.truncate(length);
    await handle.datasync();
  }

  /** Writes a full segment's index file (synced): it will not be appended again. */
  async writeIndex(record: SegmentRecord): Promise<void> {
    const file = await this.indexFileOf(record, this.blocksOf(record), 'rolled');
    const path = this.path(record.segment, record.generation, 'idx');
    const handle = await openEmpty(this.fs, path);
    try {
      await handle.write(file, 0, file.length, 0);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.fs.syncDirectory(this.dir);
    if (this.writer?.segment === record.segment) await this.closeWriter();
  }

  /**
   * Writes an unrolled segment's open index again when `every` or more of its committed blocks are
   * not listed in it yet, after the transaction that committed them. Not synced, and a failure is
   * let go: the index only spares the next open a read of those blocks.
   */
  async refreshOpenIndex(record: SegmentRecord, every: number): Promise<void> {
    const key = keyOf(record.segment, record.generation);
    const blocks = indexable(this.blocksOf(record));
    if (blocks.length === 0 || blocks.length - (this.openListed.get(key) ?? 0) < every) return;
    try {
      const file = await this.indexFileOf(record, blocks, 'open');
      await replaceFile(this.fs, this.path(record.segment, record.generation, 'oidx'), file);
      this.openListed.set(key, blocks.length);
    } catch {
      // Left as it was (or absent): open reads the blocks it does not list.
    }
  }

  /**
   * Removes a segment's open index once its rolled index (complete, synced) is committed. A failure
   * is let go: the next open removes it.
   */
  async dropOpenIndex(record: SegmentRecord): Promise<void> {
    this.openListed.delete(keyOf(record.segment, record.generation));
    await unlinkIfPresent(this.fs, this.path(record.segment, record.generation, 'oidx')).catch(() => false);
  }

  /**
   * Writes the next version of a segment, each block's rows passed through `edit` (retention keeps
   * some of them), re-sealed at their new places, each keeping its tenants' epochs; with its index
   * file: a rolled segment's, synced; an open segment's open index.
   * Returns its length and blocks (length 0: nothing kept, no file). A block that does not open
   * cannot be carried: the rewrite is refused (null) and the segment stays as it is.
   */
  async rewrite(
    record: SegmentRecord,
    edit: (
      rows: readonly AuditLogsTable[],
      tenants: Readonly<Record<string, TenantSummary>>,
    ) => AuditLogsTable[],
  ): Promise<{ generation: number; bytes: number } | null> {
    const generation = record.generation + 1;
    const blocks: BlockSummary[] = [];
    let bytes = 0;
    for (const block of this.blocksOf(record)) {
      const decoded = await this.read(record, block);
      if (!decoded) return null;
      const rows = edit(decoded.rows, decoded.tenants);
      if (rows.length === 0) continue;
      const epochOf = (t: string) => decoded.tenants[t]?.epoch ?? 0;
      blocks.push(await this.append(record.segment, generation, bytes, tableOfRows(rows), epochOf));
      bytes += blocks[blocks.length - 1]!.length;
    }
    if (bytes === 0) {
      this.indexes.delete(keyOf(record.segment, generation));
      return { generation, bytes: 0 };
    }
    await this.fs.syncDirectory(this.dir);
    const next = { ...record, generation, committed_bytes: bytes };
    if (record.rolled === 1) await this.writeIndex(next);
    else await this.refreshOpenIndex(next, 1);
    return { generation, bytes };
  }

  /** Removes a segment version's files and summaries (it is no longer named by any row). */
  async remove(segment: number, generation: number): Promise<void> {
    if (this.writer?.segment === segment && this.writer.generation === generation) await this.closeWriter();
    this.indexes.delete(keyOf(segment, generation));
    this.openListed.delete(keyOf(segment, generation));
    for (const key of [...this.decoded.keys()]) {
      if (key.startsWith(`${segment}:${generation}:`)) this.decoded.delete(key);
    }
    const oidx = this.path(segment, generation, 'oidx');
    const removed = [
      await unlinkIfPresent(this.fs, this.path(segment, generation, 'seg')),
      await unlinkIfPresent(this.fs, this.path(segment, generation, 'idx')),
      await unlinkIfPresent(this.fs, oidx),
      await unlinkIfPresent(this.fs, `${oidx}.tmp`),
    ];
    if (removed.some(Boolean)) await this.fs.syncDirectory(this.dir);
  }

  async close(): Promise<void> {
    await this.closeWriter();
    this.decoded.clear();
  }

  private async closeWriter(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    await writer?.handle.close();
  }

  /** A segment version's index file of `kind`, sealed under the segment key. */
  private indexFileOf(
    record: SegmentRecord,
    blocks: readonly BlockSummary[],
    kind: IndexKind,
  ): Promise<Uint8Array> {
    return encodeIndex(
      this.sodium,
      this.key(),
      this.vaultId,
      record.segment,
      record.generation,
      blocks,
      kind,
    );
  }

  private async writerFor(segment: number, generation: number, fresh: boolean): Promise<StorageHandle> {
    if (this.writer && this.writer.segment === segment && this.writer.generation === generation)
      return this.writer.handle;
    await this.closeWriter();
    if (!this.made) {
      await this.fs.mkdir(this.dir, 0o700);
      this.made = true;
    }
    const path = this.path(segment, generation, 'seg');
    const handle = fresh ? await openEmpty(this.fs, path) : await this.fs.open(path, 'r+');
    // The new name must survive a power loss before a transaction vouches for bytes in it.
    if (fresh) await this.fs.syncDirectory(this.dir);
    this.writer = { segment, generation, handle };
    return handle;
  }

  /**
   * Cuts bytes past the committed length (a spill that did not commit), then returns the blocks
   * the open index lists that still match the file (none without a file or an index that opens).
   */
  private async cutAndMatch(record: SegmentRecord): Promise<BlockSummary[]> {
    const path = this.path(record.segment, record.generation, 'seg');
    let handle: StorageHandle;
    try {
      handle = await this.fs.open(path, 'r+');
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return []; // reported as damage by the scan
      throw err;
    }
    try {
      const size = (await handle.stat()).size;
      if (size > record.committed_bytes) {
        await handle.truncate(record.committed_bytes);
        await handle.datasync();
      }
      const listed = await this.readIndex(record, 'open');
      if (!listed) return [];
      return await matchingBlocks(handle, listed, Math.min(size, record.committed_bytes));
    } finally {
      await handle.close();
    }
  }

  private async readIndex(record: SegmentRecord, kind: IndexKind): Promise<BlockSummary[] | null> {
    const ext = kind === 'rolled' ? 'idx' : 'oidx';
    try {
      const file = await this.fs.readFile(this.path(record.segment, record.generation, ext));
      return await decodeIndex<BlockSummary>(
        this.sodium,
        this.key(),
        this.vaultId,
        record.segment,
        record.generation,
        file,
        kind,
      );
    } catch {
      return null;
    }
  }

  /**
   * The summaries of a segment read block by block after the blocks already `known` (from its open
   * index); what does not open is one damaged block. Only the summaries are decoded, not the rows.
   */
  private async scan(record: SegmentRecord, known: readonly BlockSummary[] = []): Promise<BlockSummary[]> {
    const blocks = [...known];
    const end = record.committed_bytes;
    const last = known.at(-1);
    let offset = last ? last.offset + last.length : 0;
    if (offset >= end) return blocks;
    const damaged = (at: number): BlockSummary => ({
      offset: at,
      length: end - at,
      tenants: {},
      damaged: true,
    });
    let handle: StorageHandle;
    try {
      handle = await this.fs.open(this.path(record.segment, record.generation, 'seg'), 'r');
    } catch {
      return [...blocks, damaged(offset)];
    }
    try {
      while (offset < end) {
        const header = await readExactly(handle, offset, FRAME_HEADER_BYTES);
        const sealed = header ? frameLength(header) : null;
        const length = sealed === null ? null : FRAME_HEADER_BYTES + sealed;
        const frame =
          length !== null && offset + length <= end ? await readExactly(handle, offset, length) : null;
        if (!frame || length === null) {
          blocks.push(damaged(offset));
          break;
        }
        const place = {
          vaultId: this.vaultId,
          segment: record.segment,
          generation: record.generation,
          offset,
        };
        const tenants = await decodeBlockTenants(this.sodium, this.key(), place, frame);
        blocks.push(
          tenants
            ? { offset, length, tenants, nonce: nonceOf(frame) }
            : { offset, length, tenants: {}, damaged: true },
        );
        offset += length;
      }
    } finally {
      await handle.close();
    }
    return blocks;
  }

  private async readBlock(
    segment: number,
    generation: number,
    block: BlockSummary,
  ): Promise<DecodedBlock | null> {
    let handle: StorageHandle;
    try {
      handle = await this.fs.open(this.path(segment, generation, 'seg'), 'r');
    } catch {
      return null;
    }
    try {
      const frame = await readExactly(handle, block.offset, block.length);
      if (!frame) return null;
      const place = { vaultId: this.vaultId, segment, generation, offset: block.offset };
      return await decodeBlock(this.sodium, this.key(), place, frame);
    } finally {
      await handle.close();
    }
  }
}

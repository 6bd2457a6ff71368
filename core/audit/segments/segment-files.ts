import { join } from 'node:path';
import type { Sodium } from '../../crypto/sodium.ts';
import type { AuditLogsTable, AuditSegmentsTable } from '../../storage/schema.ts';
import { errnoOf } from '../../backends/embedded/storage-fs.ts';
import type { StorageFs, StorageHandle } from '../../backends/embedded/storage-fs.ts';
import {
  FRAME_HEADER_BYTES,
  decodeBlock,
  decodeIndex,
  encodeIndex,
  encodeTable,
  frameLength,
} from './block-codec.ts';
import { tableOfRows } from './block-rows.ts';
import type { RowTable } from './block-rows.ts';
import type { DecodedBlock } from './block-codec.ts';
import type { BlockSummary, TenantSummary } from './block-summary.ts';

/** Decoded blocks kept in memory for pages and verification that come back to them. */
const DECODED_CACHE_BLOCKS = 8;

export type SegmentRecord = AuditSegmentsTable;

/** Where a segment file version and its index live inside the segments folder. */
export function segmentFileName(segment: number, generation: number, ext: 'seg' | 'idx'): string {
  return `${String(segment).padStart(6, '0')}.${generation}.${ext}`;
}

const keyOf = (segment: number, generation: number) => `${segment}:${generation}`;

async function unlinkIfPresent(fs: StorageFs, path: string): Promise<boolean> {
  try {
    await fs.unlink(path);
    return true;
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return false;
    throw err;
  }
}

/** Opens `path` for writing, empty: created, or cut to nothing when a crashed write left it behind. */
async function openEmpty(fs: StorageFs, path: string): Promise<StorageHandle> {
  try {
    return await fs.open(path, 'wx', 0o600);
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') throw err;
    const handle = await fs.open(path, 'r+');
    await handle.truncate(0);
    return handle;
  }
}

async function readExactly(
  handle: StorageHandle,
  position: number,
  length: number,
): Promise<Uint8Array | null> {
  const buffer = new Uint8Array(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return bytesRead === length ? buffer : null;
}

/**
 * The segment files of one vault and the summaries of their blocks (in memory: small, and all a
 * listing needs to skip blocks). Which bytes count is decided by the `audit_segments` rows of the
 * caller's transaction; this class only writes, reads and cuts files. Appends come from one writer
 * at a time (the spiller or a retention rewrite, serialized by the store).
 */
export class SegmentFiles {
  private readonly indexes = new Map<string, BlockSummary[]>();
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

  path(segment: number, generation: number, ext: 'seg' | 'idx'): string {
    return join(this.dir, segmentFileName(segment, generation, ext));
  }

  /**
   * Loads the summaries of every committed segment. Bytes of the open segment past its committed
   * length (a spill whose transaction never committed; its rows are still in the table) are cut.
   * Files of versions no row names any more (a rewrite or a drop that committed, then crashed
   * before removing them) are removed.
   */
  async open(records: readonly SegmentRecord[]): Promise<void> {
    for (const record of records) {
      if (record.generation > 0) {
        await unlinkIfPresent(this.fs, this.path(record.segment, record.generation - 1, 'seg'));
        await unlinkIfPresent(this.fs, this.path(record.segment, record.generation - 1, 'idx'));
      }
      if (record.committed_bytes === 0) {
        await this.remove(record.segment, record.generation);
        continue;
      }
      let blocks: BlockSummary[] | null = null;
      if (record.rolled === 1) blocks = await this.readIndex(record);
      if (!blocks) {
        if (record.rolled !== 1) await this.cut(record);
        blocks = await this.scan(record);
      }
      this.indexes.set(keyOf(record.segment, record.generation), blocks);
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
    const block: BlockSummary = { offset, length: frame.length, tenants };
    const key = keyOf(segment, generation);
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
    const blocks = this.blocksOf(record);
    const file = await encodeIndex(
      this.sodium,
      this.key(),
      this.vaultId,
      record.segment,
      record.generation,
      blocks,
    );
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
   * Writes the next version of a segment, each block's rows passed through `edit` (retention keeps
   * some of them), re-sealed at their new places, each keeping its tenants' epochs; with its index
   * file, synced.
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
    await this.writeIndex({ ...record, generation, committed_bytes: bytes });
    return { generation, bytes };
  }

  /** Removes a segment version's files and summaries (it is no longer named by any row). */
  async remove(segment: number, generation: number): Promise<void> {
    if (this.writer?.segment === segment && this.writer.generation === generation) await this.closeWriter();
    this.indexes.delete(keyOf(segment, generation));
    for (const key of [...this.decoded.keys()]) {
      if (key.startsWith(`${segment}:${generation}:`)) this.decoded.delete(key);
    }
    const removed = [
      await unlinkIfPresent(this.fs, this.path(segment, generation, 'seg')),
      await unlinkIfPresent(this.fs, this.path(segment, generation, 'idx')),
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

  /** Cuts bytes past the committed length (a spill that did not commit). */
  private async cut(record: SegmentRecord): Promise<void> {
    const path = this.path(record.segment, record.generation, 'seg');
    let handle: StorageHandle;
    try {
      handle = await this.fs.open(path, 'r+');
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return; // reported as damage by the scan
      throw err;
    }
    try {
      if ((await handle.stat()).size > record.committed_bytes) {
        await handle.truncate(record.committed_bytes);
        await handle.datasync();
      }
    } finally {
      await handle.close();
    }
  }

  private async readIndex(record: SegmentRecord): Promise<BlockSummary[] | null> {
    try {
      const file = await this.fs.readFile(this.path(record.segment, record.generation, 'idx'));
      return await decodeIndex<BlockSummary>(
        this.sodium,
        this.key(),
        this.vaultId,
        record.segment,
        record.generation,
        file,
      );
    } catch {
      return null;
    }
  }

  /** The summaries of a segment read block by block; what does not open is one damaged block. */
  private async scan(record: SegmentRecord): Promise<BlockSummary[]> {
    const blocks: BlockSummary[] = [];
    const end = record.committed_bytes;
    const damaged = (offset: number): BlockSummary => ({
      offset,
      length: end - offset,
      tenants: {},
      damaged: true,
    });
    let handle: StorageHandle;
    try {
      handle = await this.fs.open(this.path(record.segment, record.generation, 'seg'), 'r');
    } catch {
      return [damaged(0)];
    }
    try {
      let offset = 0;
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
        const decoded = await decodeBlock(this.sodium, this.key(), place, frame);
        blocks.push(
          decoded
            ? { offset, length, tenants: decoded.tenants }
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

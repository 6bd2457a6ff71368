import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants, deflateRaw, inflateRaw } from 'node:zlib';
import { open, seal } from '../../crypto/aead.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { decodeRows, encodedRows, tableOfRows } from './block-rows.ts';
import type { RowTable } from './block-rows.ts';
import { summarize } from './block-summary.ts';
import type { TenantSummary } from './block-summary.ts';

const deflateAt = promisify(deflateRaw);
const inflate = promisify(inflateRaw);
const brotliAt = promisify(brotliCompress);
const unbrotli = promisify(brotliDecompress);

/**
 * zlib's fastest level, for index files (format 1, one per full segment). Any level inflates the
 * same way: format 1 blocks written at another level still read.
 */
const DEFLATE_OPTIONS = { level: 1 } as const;

function deflate(bytes: Buffer): Promise<Buffer> {
  return deflateAt(bytes, DEFLATE_OPTIONS);
}

/**
 * Brotli's quality 1 for format 2 blocks (on zlib's thread pool): every read and every token writes
 * an entry, and a block's JSON is mostly random ids and hashes that no setting compresses; quality
 * 1 compresses it several times faster than zlib's fastest level, and smaller, and decompresses
 * faster too. Any quality decompresses the same way.
 */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } } as const;

function compress(bytes: Buffer): Promise<Buffer> {
  return brotliAt(bytes, BROTLI_OPTIONS);
}

/**
 * Format byte of the block frames written now: rows as `block-rows.ts` describes, compressed with
 * Brotli. Blocks of format 1 (deflated, bytes as `{ b }` objects) still read. The byte is bound into the
 * AAD, so a block's format cannot be changed without it failing to open.
 */
export const BLOCK_FORMAT = 2;
const BLOCK_FORMATS_READ: readonly number[] = [1, BLOCK_FORMAT];
/** Format byte of index files (their content has not changed since format 1). */
export const INDEX_FORMAT = 1;
/** A frame: the format byte, the sealed length (u32 big-endian), the sealed bytes. */
export const FRAME_HEADER_BYTES = 5;

/** Where a block sits: its AAD binds it there, so a block moved, copied or swapped does not open. */
export interface BlockPlace {
  readonly vaultId: string;
  readonly segment: number;
  readonly generation: number;
  readonly offset: number;
}

export interface DecodedBlock {
  readonly tenants: Readonly<Record<string, TenantSummary>>;
  /** Chain order (oldest first per tenant), every column of `audit_logs`. */
  readonly rows: readonly AuditLogsTable[];
}

function blockAad(place: BlockPlace, format: number): Uint8Array {
  return Buffer.from(
    `svc vault audit block v${format}\u0000${place.vaultId}\u0000${place.segment}\u0000${place.generation}\u0000${place.offset}`,
    'utf8',
  );
}

/**
 * Seals rows (in chain order) as one block placed at `place`: their JSON with the per-tenant
 * summaries, compressed (on zlib's thread pool, not the event loop), sealed with XChaCha20-Poly1305
 * under the segment key with the place as AAD, framed. Returns the frame and the summaries.
 */
export async function encodeBlock(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  rows: readonly AuditLogsTable[],
  epochOf: (tenantId: string) => number,
): Promise<{ frame: Uint8Array; tenants: Record<string, TenantSummary> }> {
  return encodeTable(sodium, key, place, tableOfRows(rows), epochOf);
}

/** `encodeBlock` of rows already laid out as a table; the table's rows are handed over (see `encodedRows`). */
export async function encodeTable(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  table: RowTable,
  epochOf: (tenantId: string) => number,
): Promise<{ frame: Uint8Array; tenants: Record<string, TenantSummary> }> {
  const rows = encodedRows(table);
  const tenants = summarize(table, epochOf);
  const { columns, bytes } = table;
  const json = JSON.stringify({ tenants, columns, bytes, rows });
  const compressed = await compress(Buffer.from(json, 'utf8'));
  const sealed = seal(sodium, key, compressed, blockAad(place, BLOCK_FORMAT));
  return { frame: frameOf(BLOCK_FORMAT, sealed), tenants };
}

/** The block a frame holds, or null when it does not open (damaged, altered, moved). */
export async function decodeBlock(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  frame: Uint8Array,
): Promise<DecodedBlock | null> {
  const sealed = sealedOf(frame, BLOCK_FORMATS_READ);
  const format = frame[0]!;
  const plain = sealed && open(sodium, key, sealed, blockAad(place, format));
  if (!plain) return null;
  try {
    const json = format === 1 ? await inflate(plain) : await unbrotli(plain);
    const parsed = JSON.parse(json.toString('utf8')) as {
      tenants: Record<string, TenantSummary>;
      columns: string[];
      bytes?: string[];
      rows: unknown[][];
    };
    const bytes = format === 1 ? null : (parsed.bytes ?? []);
    return { tenants: parsed.tenants, rows: decodeRows(parsed.columns, bytes, parsed.rows) };
  } catch {
    return null;
  }
}

/** The sealed length a block frame's header announces (null: not a block frame of a known format). */
export function frameLength(
  header: Uint8Array,
  formats: readonly number[] = BLOCK_FORMATS_READ,
): number | null {
  if (header.length < FRAME_HEADER_BYTES || !formats.includes(header[0]!)) return null;
  return Buffer.from(header.buffer, header.byteOffset, header.length).readUInt32BE(1);
}

function frameOf(format: number, sealed: Uint8Array): Uint8Array {
  const frame = Buffer.alloc(FRAME_HEADER_BYTES + sealed.length);
  frame[0] = format;
  frame.writeUInt32BE(sealed.length, 1);
  frame.set(sealed, FRAME_HEADER_BYTES);
  return frame;
}

function sealedOf(frame: Uint8Array, formats: readonly number[]): Uint8Array | null {
  const length = frameLength(frame, formats);
  if (length === null || FRAME_HEADER_BYTES + length !== frame.length) return null;
  return frame.subarray(FRAME_HEADER_BYTES);
}

function indexAad(vaultId: string, segment: number, generation: number): Uint8Array {
  return Buffer.from(
    `svc vault audit index v${INDEX_FORMAT}\u0000${vaultId}\u0000${segment}\u0000${generation}`,
    'utf8',
  );
}

/** A rolled segment's index file: its block summaries, compressed and sealed, framed. */
export async function encodeIndex<T>(
  sodium: Sodium,
  key: Uint8Array,
  vaultId: string,
  segment: number,
  generation: number,
  blocks: readonly T[],
): Promise<Uint8Array> {
  const compressed = await deflate(Buffer.from(JSON.stringify(blocks), 'utf8'));
  return frameOf(INDEX_FORMAT, seal(sodium, key, compressed, indexAad(vaultId, segment, generation)));
}

/** The summaries an index file holds, or null when it does not open. */
export async function decodeIndex<T>(
  sodium: Sodium,
  key: Uint8Array,
  vaultId: string,
  segment: number,
  generation: number,
  file: Uint8Array,
): Promise<T[] | null> {
  const sealed = sealedOf(file, [INDEX_FORMAT]);
  const plain = sealed && open(sodium, key, sealed, indexAad(vaultId, segment, generation));
  if (!plain) return null;
  try {
    const parsed: unknown = JSON.parse((await inflate(plain)).toString('utf8'));
    return Array.isArray(parsed) ? (parsed as T[]) : null;
  } catch {
    return null;
  }
}

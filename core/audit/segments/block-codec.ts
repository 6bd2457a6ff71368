import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants, deflateRaw, inflateRaw } from 'node:zlib';
import { NONCE_BYTES, open, seal } from '../../crypto/aead.ts';
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
 * zlib's fastest level, for rolled segments' index files (format 1, one per full segment). Any
 * level inflates the same way: format 1 blocks written at another level still read.
 */
const DEFLATE_OPTIONS = { level: 1 } as const;

function deflate(bytes: Buffer): Promise<Buffer> {
  return deflateAt(bytes, DEFLATE_OPTIONS);
}

/**
 * Brotli's quality 1 for format 2 blocks and open indexes (on zlib's thread pool): every read and
 * every token writes an entry, and a block's JSON is mostly random ids and hashes that no setting
 * compresses (an index's, Bloom filters); quality 1 compresses it several times faster than zlib's
 * fastest level, and smaller, and decompresses faster too. Any quality decompresses the same way.
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
/** A frame: the format byte, the sealed length (u32 big-endian), the sealed bytes. */
export const FRAME_HEADER_BYTES = 5;
/** A frame's header and the nonce its sealed bytes start with. */
export const FRAME_HEAD_BYTES = FRAME_HEADER_BYTES + NONCE_BYTES;

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

/** A block frame's JSON, opened and decompressed, or null when it does not open. */
async function openedJson(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  frame: Uint8Array,
): Promise<{ format: number; json: Buffer } | null> {
  const sealed = sealedOf(frame, BLOCK_FORMATS_READ);
  const format = frame[0]!;
  const plain = sealed && open(sodium, key, sealed, blockAad(place, format));
  if (!plain) return null;
  try {
    return { format, json: format === 1 ? await inflate(plain) : await unbrotli(plain) };
  } catch {
    return null;
  }
}

/** The block a frame holds, or null when it does not open (damaged, altered, moved). */
export async function decodeBlock(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  frame: Uint8Array,
): Promise<DecodedBlock | null> {
  const opened = await openedJson(sodium, key, place, frame);
  if (!opened) return null;
  try {
    const parsed = JSON.parse(opened.json.toString('utf8')) as {
      tenants: Record<string, TenantSummary>;
      columns: string[];
      bytes?: string[];
      rows: unknown[][];
    };
    const bytes = opened.format === 1 ? null : (parsed.bytes ?? []);
    return { tenants: parsed.tenants, rows: decodeRows(parsed.columns, bytes, parsed.rows) };
  } catch {
    return null;
  }
}

const TENANTS_KEY = Buffer.from('{"tenants":', 'utf8');

/**
 * Where the value that starts at `from` (an object) ends in JSON text, or -1. Quotes, braces and
 * backslashes are ASCII, and no byte of a multi-byte UTF-8 character is, so the bytes can be walked
 * without decoding them.
 */
function objectEnd(json: Buffer, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < json.length; i++) {
    const c = json[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * Only the per-tenant summaries of a block, or null when it does not open: what opening a segment
 * keeps. The block's JSON starts with them (the encoder writes them first), so only they are parsed,
 * not the rows after them; JSON of another shape is parsed whole.
 */
export async function decodeBlockTenants(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  frame: Uint8Array,
): Promise<Record<string, TenantSummary> | null> {
  const opened = await openedJson(sodium, key, place, frame);
  if (!opened) return null;
  const { json } = opened;
  try {
    const end = json.subarray(0, TENANTS_KEY.length).equals(TENANTS_KEY)
      ? objectEnd(json, TENANTS_KEY.length)
      : -1;
    const tenants: unknown =
      end > 0
        ? JSON.parse(json.toString('utf8', TENANTS_KEY.length, end))
        : (JSON.parse(json.toString('utf8')) as { tenants?: unknown }).tenants;
    return tenants !== null && typeof tenants === 'object' && !Array.isArray(tenants)
      ? (tenants as Record<string, TenantSummary>)
      : null;
  } catch {
    return null;
  }
}

/** The nonce a block frame's sealed bytes start with, base64: it names that one sealing of a block. */
export function nonceOf(frame: Uint8Array): string {
  return Buffer.from(frame.buffer, frame.byteOffset + FRAME_HEADER_BYTES, NONCE_BYTES).toString('base64');
}

/** The sealed length a block frame's header announces (null: not a block frame of a known format). */
export function frameLength(
  header: Uint8Array,
  formats: readonly number[] = BLOCK_FORMATS_READ,
): number | null {
  if (header.length < FRAME_HEADER_BYTES || !formats.includes(header[0]!)) return null;
  return Buffer.from(header.buffer, header.byteOffset, header.length).readUInt32BE(1);
}

/** A frame: `format`, the sealed length, the sealed bytes. */
export function frameOf(format: number, sealed: Uint8Array): Uint8Array {
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

/**
 * What an index file says: `rolled`, every block of a full segment (written once, synced); `open`,
 * the blocks of a segment still appended to as far as its last rewrite, each named by its nonce
 * (core/audit/segments/open-index.ts). The AAD tells them apart: one never opens as the other.
 */
export type IndexKind = 'rolled' | 'open';

/**
 * Format byte of each kind of index file: a rolled index is format 1 (deflated, as since segments
 * exist); an open index, format 2 (Brotli: it is written again as its segment grows, see
 * `BROTLI_OPTIONS`).
 */
const INDEX_FORMATS: Readonly<Record<IndexKind, number>> = { rolled: 1, open: 2 };

function indexAad(vaultId: string, segment: number, generation: number, kind: IndexKind): Uint8Array {
  const label = kind === 'rolled' ? 'index' : 'open index';
  return Buffer.from(
    `svc vault audit ${label} v${INDEX_FORMATS[kind]}\u0000${vaultId}\u0000${segment}\u0000${generation}`,
    'utf8',
  );
}

/** An index file: a segment's block summaries, compressed and sealed, framed. */
export async function encodeIndex<T>(
  sodium: Sodium,
  key: Uint8Array,
  vaultId: string,
  segment: number,
  generation: number,
  blocks: readonly T[],
  kind: IndexKind = 'rolled',
): Promise<Uint8Array> {
  const json = Buffer.from(JSON.stringify(blocks), 'utf8');
  const compressed = kind === 'rolled' ? await deflate(json) : await compress(json);
  const aad = indexAad(vaultId, segment, generation, kind);
  return frameOf(INDEX_FORMATS[kind], seal(sodium, key, compressed, aad));
}

/** The summaries an index file holds, or null when it does not open. */
export async function decodeIndex<T>(
  sodium: Sodium,
  key: Uint8Array,
  vaultId: string,
  segment: number,
  generation: number,
  file: Uint8Array,
  kind: IndexKind = 'rolled',
): Promise<T[] | null> {
  const sealed = sealedOf(file, [INDEX_FORMATS[kind]]);
  const plain = sealed && open(sodium, key, sealed, indexAad(vaultId, segment, generation, kind));
  if (!plain) return null;
  try {
    const json = kind === 'rolled' ? await inflate(plain) : await unbrotli(plain);
    const parsed: unknown = JSON.parse(json.toString('utf8'));
    return Array.isArray(parsed) ? (parsed as T[]) : null;
  } catch {
    return null;
  }
}

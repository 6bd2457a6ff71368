import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { VaultError } from '../../errors/catalogue.ts';
import { open, seal } from '../../crypto/aead.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { summarize } from './block-summary.ts';
import type { TenantSummary } from './block-summary.ts';

const deflateAt = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * zlib's fastest level: an entry is mostly random ids and hashes, which no level compresses, so the
 * slower levels buy next to nothing in size for their CPU (every read and every token writes an
 * entry). Any level inflates the same way: blocks written at another level still read.
 */
const DEFLATE_OPTIONS = { level: 1 } as const;

function deflate(bytes: Buffer): Promise<Buffer> {
  return deflateAt(bytes, DEFLATE_OPTIONS);
}

/** Format byte leading every block frame (and index file): what follows and how it is sealed. */
export const SEGMENT_FORMAT = 1;
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

function blockAad(place: BlockPlace): Uint8Array {
  return Buffer.from(
    `svc vault audit block v${SEGMENT_FORMAT}\u0000${place.vaultId}\u0000${place.segment}\u0000${place.generation}\u0000${place.offset}`,
    'utf8',
  );
}

/** A binary column in JSON. */
interface Bytes {
  readonly b: string;
}
type Cell = string | number | null | Bytes;

function cellOf(value: unknown): Cell {
  if (value instanceof Uint8Array)
    return { b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  throw new VaultError('INTERNAL', `An audit column holds a ${typeof value}, which a segment cannot store.`);
}

function valueOf(cell: unknown): unknown {
  if (cell !== null && typeof cell === 'object' && typeof (cell as Bytes).b === 'string')
    return new Uint8Array(Buffer.from((cell as Bytes).b, 'base64'));
  return cell;
}

/**
 * Rows as generic columns, so every column of `audit_logs` is carried, whatever columns later
 * migrations add. `prev_hash` is left out (null) where it is the hash of the tenant's entry just
 * before it in the block, which it nearly always is: 32 bytes of each entry that can be rebuilt.
 */
function encodeRows(rows: readonly AuditLogsTable[]): { columns: string[]; rows: Cell[][] } {
  const first = rows[0];
  const columns = first ? Object.keys(first) : [];
  const lastHash = new Map<string, Uint8Array>();
  const out = rows.map((row) => {
    const record = row as unknown as Record<string, unknown>;
    const before = lastHash.get(row.tenant_id);
    lastHash.set(row.tenant_id, row.hash);
    // Compared in place (Buffer.compare takes any Uint8Array): no copies of either hash.
    const rebuilt = before !== undefined && Buffer.compare(before, row.prev_hash) === 0;
    return columns.map((c) => (rebuilt && c === 'prev_hash' ? null : cellOf(record[c])));
  });
  return { columns, rows: out };
}

function isAuditRow(record: Record<string, unknown>): record is Record<string, unknown> & AuditLogsTable {
  return (
    typeof record.id === 'string' &&
    typeof record.tenant_id === 'string' &&
    typeof record.seq === 'number' &&
    typeof record.operation === 'string' &&
    typeof record.created_at === 'string' &&
    record.hash instanceof Uint8Array &&
    record.prev_hash instanceof Uint8Array
  );
}

function decodeRows(columns: readonly string[], cells: readonly (readonly unknown[])[]): AuditLogsTable[] {
  const lastHash = new Map<string, Uint8Array>();
  return cells.map((line) => {
    const record: Record<string, unknown> = {};
    columns.forEach((c, i) => (record[c] = valueOf(line[i] ?? null)));
    if (record.prev_hash === null && typeof record.tenant_id === 'string')
      record.prev_hash = lastHash.get(record.tenant_id) ?? null;
    if (!isAuditRow(record))
      throw new VaultError('VAULT_CORRUPT', 'An audit segment block holds a malformed entry.');
    lastHash.set(record.tenant_id, record.hash);
    return record;
  });
}

/**
 * Seals rows (in chain order) as one block placed at `place`: their JSON with the per-tenant
 * summaries, compressed (zlib on its thread pool, not the event loop), sealed with XChaCha20-Poly1305
 * under the segment key with the place as AAD, framed. Returns the frame and the summaries.
 */
export async function encodeBlock(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  rows: readonly AuditLogsTable[],
  epochOf: (tenantId: string) => number,
): Promise<{ frame: Uint8Array; tenants: Record<string, TenantSummary> }> {
  const tenants = summarize(rows, epochOf);
  const json = JSON.stringify({ tenants, ...encodeRows(rows) });
  const compressed = await deflate(Buffer.from(json, 'utf8'));
  return { frame: frameOf(seal(sodium, key, compressed, blockAad(place))), tenants };
}

/** The block a frame holds, or null when it does not open (damaged, altered, moved). */
export async function decodeBlock(
  sodium: Sodium,
  key: Uint8Array,
  place: BlockPlace,
  frame: Uint8Array,
): Promise<DecodedBlock | null> {
  const sealed = sealedOf(frame);
  const plain = sealed && open(sodium, key, sealed, blockAad(place));
  if (!plain) return null;
  try {
    const parsed = JSON.parse((await inflate(plain)).toString('utf8')) as {
      tenants: Record<string, TenantSummary>;
      columns: string[];
      rows: unknown[][];
    };
    return { tenants: parsed.tenants, rows: decodeRows(parsed.columns, parsed.rows) };
  } catch {
    return null;
  }
}

/** The sealed length a frame header announces (null: not a frame of this format). */
export function frameLength(header: Uint8Array): number | null {
  if (header.length < FRAME_HEADER_BYTES || header[0] !== SEGMENT_FORMAT) return null;
  return Buffer.from(header.buffer, header.byteOffset, header.length).readUInt32BE(1);
}

function frameOf(sealed: Uint8Array): Uint8Array {
  const frame = Buffer.alloc(FRAME_HEADER_BYTES + sealed.length);
  frame[0] = SEGMENT_FORMAT;
  frame.writeUInt32BE(sealed.length, 1);
  frame.set(sealed, FRAME_HEADER_BYTES);
  return frame;
}

function sealedOf(frame: Uint8Array): Uint8Array | null {
  const length = frameLength(frame);
  if (length === null || FRAME_HEADER_BYTES + length !== frame.length) return null;
  return frame.subarray(FRAME_HEADER_BYTES);
}

function indexAad(vaultId: string, segment: number, generation: number): Uint8Array {
  return Buffer.from(
    `svc vault audit index v${SEGMENT_FORMAT}\u0000${vaultId}\u0000${segment}\u0000${generation}`,
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
  return frameOf(seal(sodium, key, compressed, indexAad(vaultId, segment, generation)));
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
  const sealed = sealedOf(file);
  const plain = sealed && open(sodium, key, sealed, indexAad(vaultId, segment, generation));
  if (!plain) return null;
  try {
    const parsed: unknown = JSON.parse((await inflate(plain)).toString('utf8'));
    return Array.isArray(parsed) ? (parsed as T[]) : null;
  } catch {
    return null;
  }
}

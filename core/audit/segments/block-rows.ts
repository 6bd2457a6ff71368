import { VaultError } from '../../errors/catalogue.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';

/**
 * How a block's JSON holds its rows: generic columns, so every column of `audit_logs` is carried,
 * whatever columns later migrations add. `prev_hash` is left out (null) where it is the hash of the
 * tenant's entry just before it in the block, which it nearly always is: 32 bytes of each entry
 * that can be rebuilt.
 *
 * Format 2 (written now) names the columns holding bytes in `bytes` and writes their cells as
 * base64 text: no object per binary cell. Format 1 (read only) wrote each as `{ "b": base64 }`.
 */

/** A cell of a row about to be encoded: a column's value, bytes for a bytes column. */
export type Cell = string | number | null | Uint8Array;

/** A block's rows, cells in column order. */
export interface RowTable {
  readonly columns: readonly string[];
  /** The columns whose cells (null aside) are bytes. */
  readonly bytes: readonly string[];
  /** Each row's cells in `columns` order, oldest first (per tenant: chain order). */
  readonly rows: Cell[][];
}

/** Where a column the encoding or the summaries read sits in a row. */
export function columnIndex(table: Pick<RowTable, 'columns'>, column: keyof AuditLogsTable): number {
  const at = table.columns.indexOf(column);
  if (at < 0) throw new VaultError('INTERNAL', `An audit block has no ${column} column.`);
  return at;
}

function refused(value: unknown): VaultError {
  return new VaultError('INTERNAL', `An audit column holds a ${typeof value}, which a segment cannot store.`);
}

/** Rows (in chain order) as a table: a column is a bytes column when any of its values is bytes. */
export function tableOfRows(rows: readonly AuditLogsTable[]): RowTable {
  const first = rows[0];
  const columns = first ? Object.keys(first) : [];
  const records = rows as unknown as readonly Record<string, Cell>[];
  const bytes = columns.filter((c) => records.some((r) => r[c] instanceof Uint8Array));
  // Cells as they are: the encoding refuses what a block cannot carry (undefined among them).
  return { columns, bytes, rows: records.map((r) => columns.map((c) => r[c]!)) };
}

/** Holds each bytes cell while it is written as base64: no Buffer per cell. */
const scratch = Buffer.alloc(64);

function base64Of(bytes: Uint8Array): string {
  if (bytes.length > scratch.length)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  scratch.set(bytes);
  return scratch.toString('base64', 0, bytes.length);
}

/**
 * The table's rows as format 2 writes them, edited in place (the caller hands them over): each
 * rebuildable `prev_hash` replaced by null, bytes as base64. Refuses a cell of another type than
 * its column's (bytes in a bytes column, text or a number elsewhere).
 */
export function encodedRows(table: RowTable): (string | number | null)[][] {
  const tenantAt = columnIndex(table, 'tenant_id');
  const hashAt = columnIndex(table, 'hash');
  const prevAt = columnIndex(table, 'prev_hash');
  const width = table.columns.length;
  const bytes = table.columns.map((c) => table.bytes.includes(c));
  const lastHash = new Map<Cell, Uint8Array>();
  for (const row of table.rows) {
    if (row.length !== width) throw new VaultError('INTERNAL', 'An audit row does not match its columns.');
    const hash = row[hashAt];
    const prev = row[prevAt];
    const before = lastHash.get(row[tenantAt]!);
    if (hash instanceof Uint8Array) lastHash.set(row[tenantAt]!, hash);
    // Compared in place (Buffer.compare takes any Uint8Array): no copy of either hash.
    if (before && prev instanceof Uint8Array && Buffer.compare(before, prev) === 0) row[prevAt] = null;
    for (let i = 0; i < width; i++) {
      const cell = row[i]!;
      if (cell === null) continue;
      if (bytes[i]) {
        if (!(cell instanceof Uint8Array)) throw refused(cell);
        row[i] = base64Of(cell);
      } else if (typeof cell !== 'string' && typeof cell !== 'number') throw refused(cell);
    }
  }
  return table.rows as (string | number | null)[][];
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

const malformed = () => new VaultError('VAULT_CORRUPT', 'An audit segment block holds a malformed entry.');

/** A format 1 cell: a value, or bytes as `{ "b": base64 }`. */
function valueOfCell(cell: unknown): unknown {
  if (cell !== null && typeof cell === 'object' && typeof (cell as { b?: unknown }).b === 'string')
    return new Uint8Array(Buffer.from((cell as { b: string }).b, 'base64'));
  return cell;
}

/** A format 2 bytes cell: base64 text, whole (Buffer skips what is not base64: it comes out short). */
function bytesOfBase64(cell: unknown): Uint8Array | null {
  if (cell === null) return null;
  if (typeof cell !== 'string' || cell.length % 4 !== 0) throw malformed();
  const padding = cell.endsWith('==') ? 2 : cell.endsWith('=') ? 1 : 0;
  const bytes = new Uint8Array(Buffer.from(cell, 'base64'));
  if (bytes.length !== (cell.length / 4) * 3 - padding) throw malformed();
  return bytes;
}

/**
 * The rows a block's JSON holds (format 1 when `bytes` is null), each checked to be an audit row,
 * with every `prev_hash` left out rebuilt.
 */
export function decodeRows(
  columns: readonly string[],
  bytesColumns: readonly string[] | null,
  cells: readonly (readonly unknown[])[],
): AuditLogsTable[] {
  const bytes = columns.map((c) => bytesColumns?.includes(c) === true);
  const lastHash = new Map<string, Uint8Array>();
  return cells.map((line) => {
    const record: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const cell = line[i] ?? null;
      record[c] = bytesColumns === null ? valueOfCell(cell) : bytes[i] ? bytesOfBase64(cell) : cell;
    });
    if (record.prev_hash === null && typeof record.tenant_id === 'string')
      record.prev_hash = lastHash.get(record.tenant_id) ?? null;
    if (!isAuditRow(record)) throw malformed();
    lastHash.set(record.tenant_id, record.hash);
    return record;
  });
}

import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { Cell } from './block-rows.ts';

/**
 * How the spiller reads `audit_logs`: one statement per chunk whose rows come back as the arrays
 * sql.js builds, taken as they are for a block: no row object per row.
 */
export interface SpillReader {
  /** Every column of `audit_logs`, in table order. */
  readonly columns: readonly string[];
  /** The columns declared BLOB: their cells must be bytes (the encoding checks it). */
  readonly bytes: readonly string[];
  /** Rows with `from < rowid <= to` in rowid order, at most `limit`: the cells, then the rowid. */
  readonly sql: string;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The reader for the table as it is now (the columns come from the schema: migrations add some). */
export async function spillReader(db: Kysely<Database>): Promise<SpillReader> {
  const { rows } = await sql<{
    name: string;
    type: string;
  }>`select name, type from pragma_table_info('audit_logs') order by cid`.execute(db);
  const columns = rows.map((r) => r.name);
  const bytes = rows.filter((r) => r.type.toUpperCase() === 'BLOB').map((r) => r.name);
  return {
    columns,
    bytes,
    sql: `SELECT ${columns.map(quoted).join(', ')}, rowid FROM audit_logs WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?`,
  };
}

/**
 * Moves a chunk's rows (as `SpillReader.sql` returns them) onto `into` as cells, each array taken
 * as it is once its rowid is popped; returns the last rowid, or null when the chunk is empty. The
 * cells are checked when the block is encoded.
 */
export function takeChunk(chunk: unknown[][], into: Cell[][]): number | null {
  let last: number | null = null;
  for (const row of chunk) {
    last = row.pop() as number;
    into.push(row as Cell[]);
  }
  return last;
}

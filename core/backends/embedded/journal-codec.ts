/** A parameter of a journaled statement, as sql.js binds it. */
export type SqlParam = string | number | null | Uint8Array;

/** One write statement of a committed transaction, in execution order. */
export type JournaledStatement = readonly [sql: string, params: readonly SqlParam[]];

export interface JournalEntry {
  readonly seq: number;
  readonly at: string;
  readonly stmts: readonly JournaledStatement[];
}

/**
 * JSON with binary parameters as `{"$b": base64}`. The binary parameters are swapped before
 * JSON.stringify rather than by a replacer function, which would take V8 off its fast path for
 * every key of every statement; the bytes are the same.
 */
export function encodeEntry(entry: JournalEntry): Buffer {
  const stmts = entry.stmts.map(([sql, params]) => [sql, params.map(jsonParam)]);
  return Buffer.from(JSON.stringify({ seq: entry.seq, at: entry.at, stmts }), 'utf8');
}

function jsonParam(value: SqlParam): string | number | null | { $b: string } {
  return value instanceof Uint8Array
    ? { $b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') }
    : value;
}

export function decodeEntry(bytes: Uint8Array): JournalEntry {
  return JSON.parse(Buffer.from(bytes).toString('utf8'), (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && '$b' in value && typeof value.$b === 'string') {
      return new Uint8Array(Buffer.from(value.$b, 'base64'));
    }
    return value;
  }) as JournalEntry;
}

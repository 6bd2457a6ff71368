/** A parameter of a journaled statement, as sql.js binds it. */
export type SqlParam = string | number | null | Uint8Array;

/** One write statement of a committed transaction, in execution order. */
export type JournaledStatement = readonly [sql: string, params: readonly SqlParam[]];

export interface JournalEntry {
  readonly seq: number;
  readonly at: string;
  readonly stmts: readonly JournaledStatement[];
}

/** JSON with binary parameters as `{"$b": base64}`. */
export function encodeEntry(entry: JournalEntry): Buffer {
  return Buffer.from(
    JSON.stringify(entry, (_key, value: unknown) =>
      value instanceof Uint8Array ? { $b: Buffer.from(value).toString('base64') } : value,
    ),
    'utf8',
  );
}

export function decodeEntry(bytes: Uint8Array): JournalEntry {
  return JSON.parse(Buffer.from(bytes).toString('utf8'), (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && '$b' in value && typeof value.$b === 'string') {
      return new Uint8Array(Buffer.from(value.$b, 'base64'));
    }
    return value;
  }) as JournalEntry;
}

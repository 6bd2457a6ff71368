/**
 * Counts the writes of this process's vault connection per table, so that rows kept in memory
 * (core/tenancy/api-key-cache.ts, the reactor cache) can tell whether they may still be served.
 *
 * Rule: a cached value carries the `version` of the tables it was read from, taken BEFORE the
 * read, and is served only while `version` of those tables is unchanged. Every write statement
 * bumps its table's counter when it runs, and a transaction that wrote any table bumps them again
 * when it ends (commit or rollback): a value read inside a transaction that later rolled back,
 * or read before a commit that changed it, is never served. A statement whose table is not
 * recognised bumps every table. Exact only where this process sees every write: the embedded vault,
 * which holds the vault file's exclusive lock. A backend shared with other processes (PostgreSQL)
 * has no TableChanges, and nothing is cached there.
 */

/** `insert [or …] into "t"`, `replace into "t"`, `update [or …] "t"`, `delete from "t"`. */
const WRITTEN_TABLE =
  /^\s*(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+"?([A-Za-z_]\w*)"?/i;

export class TableChanges {
  /** Bumped by statements whose table is unknown (and so touch every table). */
  private all = 0;
  private readonly tables = new Map<string, number>();
  /** Tables written by the transaction now running. */
  private readonly pending = new Set<string>();
  private pendingAll = false;

  /** A number that changes whenever any of `tables` is written. */
  version(tables: readonly string[]): number {
    let sum = this.all;
    for (const table of tables) sum += this.tables.get(table) ?? 0;
    return sum;
  }

  /** Called for every write statement, before it runs. */
  noteWrite(sql: string): void {
    const table = WRITTEN_TABLE.exec(sql)?.[1]?.toLowerCase();
    if (table === undefined) {
      this.all += 1;
      this.pendingAll = true;
      return;
    }
    this.bump(table);
    this.pending.add(table);
  }

  /** Called when a transaction ends, committed or rolled back. */
  noteTransactionEnd(): void {
    if (this.pendingAll) this.all += 1;
    for (const table of this.pending) this.bump(table);
    this.pending.clear();
    this.pendingAll = false;
  }

  private bump(table: string): void {
    this.tables.set(table, (this.tables.get(table) ?? 0) + 1);
  }
}

/**
 * A small map of values read from some tables, each served only while those tables are unchanged
 * (see TableChanges). Bounded: when full it is cleared, which only costs reads.
 */
export class TableCache<V> {
  private readonly entries = new Map<string, { readonly version: number; readonly value: V }>();

  constructor(
    private readonly changes: TableChanges,
    private readonly tables: readonly string[],
    private readonly maxEntries: number,
  ) {}

  /** The version to pass to `set` for a value about to be read: take it BEFORE the read. */
  version(): number {
    return this.changes.version(this.tables);
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === this.version()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` if none of the tables changed since `version` was taken. */
  set(key: string, version: number, value: V): void {
    if (version !== this.version()) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { version, value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

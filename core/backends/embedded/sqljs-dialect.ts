import { CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
} from 'kysely';
import type { Database as SqlJsDatabase, Statement } from 'sql.js';
import { VaultError } from '../../errors/catalogue.ts';
import type { SqlParam } from './journal-codec.ts';

/**
 * The one sql.js connection of a vault, as Kysely sees it. Every statement it runs is classified:
 * reads run as they are, writes are handed to `onWrite` first, which records them for the journal
 * (inside a transaction) or refuses them (outside one).
 */
interface Prepared {
  readonly stmt: Statement;
  /** Result column names, fixed for a prepared statement: read once, not per row. */
  readonly columns: readonly string[];
}

/**
 * Prepared statements kept per connection. Multi-row inserts are one statement per row count, and
 * grouped writes (tokenize) see every count up to their chunk size, for several tables: fewer than
 * this and the cache is emptied and refilled over and over.
 */
const MAX_STATEMENTS = 1024;

export class SqlJsConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();

  constructor(
    private readonly db: SqlJsDatabase,
    private readonly onWrite: (sql: string, params: readonly SqlParam[]) => void,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.run<R>(compiled.sql, compiled.parameters);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new VaultError('INTERNAL', 'Streaming queries are not supported by the embedded store.');
  }

  run<R>(sql: string, rawParams: readonly unknown[]): QueryResult<R> {
    const params = rawParams.map(toSqlParam);
    const write = isWriteStatement(sql);
    if (write) this.onWrite(sql, params);
    const { stmt, columns } = this.prepare(sql);
    try {
      stmt.bind(params as SqlParam[]);
      const rows: R[] = [];
      // `get` plus the cached names: `getAsObject` asks SQLite for every column's name on every row.
      while (stmt.step()) {
        const values = stmt.get();
        const row: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
        rows.push(row as R);
      }
      if (!write) return { rows };
      return { rows, numAffectedRows: BigInt(this.db.getRowsModified()) };
    } finally {
      stmt.reset();
    }
  }

  /**
   * A read's rows as arrays of their columns, in order: no object per row, for a caller that reads
   * thousands of rows at a time (the audit spiller). A write statement is refused.
   */
  readArrays(sql: string, rawParams: readonly unknown[]): unknown[][] {
    if (isWriteStatement(sql)) throw new VaultError('INTERNAL', 'readArrays runs reads only.');
    const { stmt } = this.prepare(sql);
    try {
      stmt.bind(rawParams.map(toSqlParam));
      const rows: unknown[][] = [];
      while (stmt.step()) rows.push(stmt.get());
      return rows;
    } finally {
      stmt.reset();
    }
  }

  /**
   * Runs one statement that the engine itself issues (BEGIN, COMMIT, pragmas): not journaled here.
   * Prepared once and kept, like every statement: `Database.exec` would parse it on every call,
   * and BEGIN and COMMIT run on every transaction.
   */
  exec(sql: string, params: readonly SqlParam[] = []): void {
    const { stmt } = this.prepare(sql);
    try {
      stmt.bind(params as SqlParam[]);
      while (stmt.step()) {
        /* drain */
      }
    } finally {
      stmt.reset();
    }
  }

  /** sql.js frees every statement on export(); forget ours before that happens. */
  forgetStatements(): void {
    for (const { stmt } of this.statements.values()) stmt.free();
    this.statements.clear();
  }

  private prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      if (this.statements.size >= MAX_STATEMENTS) this.forgetStatements();
      const stmt = this.db.prepare(sql);
      prepared = { stmt, columns: stmt.getColumnNames() };
      this.statements.set(sql, prepared);
    }
    return prepared;
  }
}

/** Plain reads start with SELECT (or a WITH that writes nothing); everything else changes state. */
export function isWriteStatement(sql: string): boolean {
  const head = sql.trimStart().slice(0, 10).toLowerCase();
  if (head.startsWith('select')) return false;
  if (head.startsWith('with')) return /\b(insert|update|delete|replace)\b/i.test(sql);
  if (head.startsWith('pragma')) return sql.includes('=');
  if (head.startsWith('explain')) return false;
  return true;
}

function toSqlParam(value: unknown): SqlParam {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof Date) return value.toISOString();
  throw new VaultError('INTERNAL', `Unsupported SQL parameter type: ${typeof value}.`);
}

/** A driver whose connection access is decided by the vault (which owns locking and transactions). */
class SqlJsDriver implements Driver {
  constructor(
    private readonly acquire: () => Promise<SqlJsConnection>,
    private readonly release: () => Promise<void>,
  ) {}
  async init(): Promise<void> {}
  acquireConnection(): Promise<DatabaseConnection> {
    return this.acquire();
  }
  async beginTransaction(): Promise<void> {
    throw new VaultError('INTERNAL', 'Use vault.transaction() for transactions.');
  }
  async commitTransaction(): Promise<void> {
    throw new VaultError('INTERNAL', 'Use vault.transaction() for transactions.');
  }
  async rollbackTransaction(): Promise<void> {
    throw new VaultError('INTERNAL', 'Use vault.transaction() for transactions.');
  }
  releaseConnection(): Promise<void> {
    return this.release();
  }
  async destroy(): Promise<void> {}
}

export class SqlJsDialect implements Dialect {
  constructor(
    private readonly acquire: () => Promise<SqlJsConnection>,
    private readonly release: () => Promise<void>,
  ) {}
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new SqlJsDriver(this.acquire, this.release);
  }
  // Kysely's own signature takes Kysely<any>; the introspector is not used by the vault.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
}

export { CompiledQuery };

const NON_DETERMINISTIC =
  /\b(random|randomblob|current_timestamp|current_date|current_time)\b|\b(date|time|datetime|julianday|unixepoch|strftime)\s*\([^)]*'now'/i;

/** Journal replay re-runs statements; a statement whose result depends on when it runs would diverge. */
export function assertDeterministic(sql: string): void {
  if (NON_DETERMINISTIC.test(sql)) {
    throw new VaultError(
      'INTERNAL',
      'A write statement uses a clock or random function; pass the value as a parameter.',
    );
  }
}

import type { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  RawNode,
  SelectQueryNode,
} from 'kysely';
import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PostgresPool,
  PluginTransformResultArgs,
  QueryCompiler,
  QueryResult,
  RootOperationNode,
  TransactionSettings,
  UnknownRow,
} from 'kysely';
import type { Pool } from 'pg';
import { VaultError } from '../../errors/catalogue.ts';
import { explainPostgresError } from './errors.ts';

/** The connection a running transaction holds; queries made inside it run on it. */
export interface PostgresTransactionState {
  readonly connection: DatabaseConnection;
  active: boolean;
}

/**
 * Kysely's PostgreSQL driver, routed: inside `PostgresVault.transaction` every query (through
 * `vault.db` or the `trx` argument alike) runs on the transaction's connection, as on the embedded
 * backend; outside one each query takes a pooled connection. Database errors become typed
 * VaultErrors (an unreachable database is SERVICE_UNAVAILABLE: a 503 problem).
 */
class RoutedDriver implements Driver {
  constructor(
    private readonly inner: PostgresDriver,
    private readonly tx: AsyncLocalStorage<PostgresTransactionState>,
  ) {}

  private ready: Promise<void> | undefined;

  /** Kysely calls this before its first query; the vault's own transactions may come first. */
  init(): Promise<void> {
    this.ready ??= this.inner.init();
    return this.ready;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const state = this.tx.getStore();
    if (state?.active) return new JoinedConnection(state.connection);
    return new ExplainedConnection(await this.acquireRaw());
  }

  /** A pooled connection, unwrapped: the vault's own transactions drive it. */
  async acquireRaw(): Promise<DatabaseConnection> {
    try {
      await this.init();
      return await this.inner.acquireConnection();
    } catch (err) {
      throw explainPostgresError(err);
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection) as never);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof JoinedConnection) return;
    await this.inner.releaseConnection(unwrap(connection) as never);
  }

  releaseRaw(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection as never);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof ExplainedConnection || connection instanceof JoinedConnection
    ? connection.inner
    : connection;
}

class ExplainedConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(compiled);
    } catch (err) {
      throw explainPostgresError(err);
    }
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }
}

/** The running transaction's connection lent to a query: releasing it does not end the transaction. */
class JoinedConnection extends ExplainedConnection {}

/** Refuses a write outside a transaction, as the embedded backend does (the storage contract). */
class ReadOnlyOutsideTransactions implements KyselyPlugin {
  constructor(private readonly tx: AsyncLocalStorage<PostgresTransactionState>) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node;
    if (!this.tx.getStore()?.active && !SelectQueryNode.is(node) && !RawNode.is(node)) {
      throw new VaultError('INTERNAL', 'Writes must go through vault.transaction().');
    }
    return node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

export class RoutedPostgresDialect implements Dialect {
  readonly driver: RoutedDriver;

  /** `ownsPool`: whether destroying the dialect ends the pool (else its owner does). */
  constructor(pool: Pool, ownsPool: boolean, tx: AsyncLocalStorage<PostgresTransactionState>) {
    const used: PostgresPool = ownsPool
      ? pool
      : { connect: () => pool.connect(), end: async () => undefined };
    this.driver = new RoutedDriver(new PostgresDriver({ pool: used }), tx);
  }

  createDriver(): Driver {
    return this.driver;
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

export function readOnlyOutsideTransactions(tx: AsyncLocalStorage<PostgresTransactionState>): KyselyPlugin {
  return new ReadOnlyOutsideTransactions(tx);
}

/** Runs engine SQL (BEGIN, COMMIT, locks) on a raw connection, with database errors explained. */
export async function runRaw(connection: DatabaseConnection, text: string, params: unknown[] = []) {
  try {
    return await connection.executeQuery(CompiledQuery.raw(text, params));
  } catch (err) {
    throw explainPostgresError(err);
  }
}

import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Pool, PoolConfig } from 'pg';
import { VaultError } from '../../errors/catalogue.ts';

/** Connection limits of one process; several servers on one database each have their own pool. */
export interface PostgresPoolLimits {
  /** Connections held at most. Default 10. */
  readonly max: number;
  /** How long a request waits for a free connection (or a new one) before a 503. Default 5 s. */
  readonly connectTimeoutMs: number;
  /** The server cancels a statement running longer than this (a 503). Default 30 s. */
  readonly statementTimeoutMs: number;
  /** A transaction left idle this long is ended by the server. Default 60 s. */
  readonly idleInTransactionTimeoutMs: number;
}

export const DEFAULT_POSTGRES_POOL: PostgresPoolLimits = {
  max: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
};

/**
 * The PostgreSQL client, loaded when the first pool is made: every `svc` process reaches this
 * module through the vault's modules, most of them only to open the embedded file, and loading pg
 * (with the fetch classes it probes at load) is a noticeable part of a CLI command's start.
 */
let client: typeof pg | undefined;
function pgClient(): typeof pg {
  client ??= createRequire(import.meta.url)('pg') as typeof pg;
  return client;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * bigint columns and counts come back as JS numbers, as they do from SQLite; every value the vault
 * stores is far below 2^53 (row ids, sequences, counts).
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pgClient().types.getTypeParser(oid, format as 'text');
  },
} as PoolConfig['types'];

function isLoopback(host: string): boolean {
  return (
    host === '' ||
    host === 'localhost' ||
    host === '::1' ||
    host === '[::1]' ||
    host.startsWith('127.') ||
    host.startsWith('/')
  );
}

/**
 * Parses a `postgres://` URL. TLS: the URL's `sslmode` decides (`verify-full` checks the server's
 * certificate and name, with `sslrootcert=` naming the CA file); a URL to a host other than this
 * machine without `sslmode` gets `verify-full`, so credentials and rows never cross a network in
 * plaintext unless `sslmode=disable` asks for it in writing. A loopback address or a Unix socket
 * (a host that is a folder) stays on this machine and needs no TLS; PostgreSQL offers none on a socket.
 */
export function postgresConnectionString(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new VaultError('VALIDATION_FAILED', 'The database URL is not a valid postgres:// URL.');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new VaultError('VALIDATION_FAILED', 'The database URL must start with postgres://.');
  }
  // The host the client connects to: a `host` parameter wins over the URL's host, a Unix socket's
  // folder is written percent-encoded in the host (`postgres://user@%2Frun%2Fpostgresql/db`), and a
  // URL without a host connects where PGHOST says (the client's default), else to localhost.
  const host =
    parsed.searchParams.get('host') ?? (decodeURIComponent(parsed.hostname) || (process.env.PGHOST ?? ''));
  if (!parsed.searchParams.has('sslmode') && !isLoopback(host)) {
    parsed.searchParams.set('sslmode', 'verify-full');
  }
  return parsed.toString();
}

/** The URL with its password hidden, for status, logs and errors. */
export function createPostgresPool(url: string, limits: Partial<PostgresPoolLimits> = {}): Pool {
  const l = { ...DEFAULT_POSTGRES_POOL, ...limits };
  const pool = new (pgClient().Pool)({
    connectionString: postgresConnectionString(url),
    max: l.max,
    connectionTimeoutMillis: l.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: l.statementTimeoutMs,
    idle_in_transaction_session_timeout: l.idleInTransactionTimeoutMs,
    application_name: 'svc',
    types,
  });
  // An idle connection dropped by a database restart is discarded by the pool; without a listener
  // the error would end the process. The next query opens a fresh connection (or answers 503).
  pool.on('error', () => undefined);
  // The pool listens only while a connection is idle: one lost while checked out (between the
  // statements of a transaction, say) would emit an unheard 'error' and end the process. The
  // statement running on it fails on its own (a 503), and the pool discards it on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

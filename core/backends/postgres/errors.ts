import { VaultError } from '../../errors/catalogue.ts';

/**
 * SQLSTATEs after which the same transaction, run again, may well succeed: serialization failure,
 * deadlock, and a unique violation. The services check then insert (an id, a tenant key created on
 * first use, the audit chain's next sequence number); between two processes the constraint is what
 * decides, and the loser's rerun sees the winner's row and takes the path for an existing one.
 */
const RETRYABLE = new Set(['40001', '40P01', '23505']);

/** Connection exceptions (class 08), shutdown and crash states, too many connections. */
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
]);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A serialization failure or deadlock: the transaction was rolled back and may be retried. */
export function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && RETRYABLE.has(code);
}

/** A unique or primary-key constraint refused the row (another writer got there first). */
export function isUniqueViolation(err: unknown): boolean {
  return codeOf(err) === '23505';
}

/**
 * Turns a driver error into the catalogue's: an unreachable or restarting database, a pool that
 * found no free connection in time, or a statement cut by the statement timeout is
 * SERVICE_UNAVAILABLE (a 503 problem; the request changed nothing and can be repeated). Other
 * errors pass through unchanged. Messages never carry the connection string.
 */
export function explainPostgresError(err: unknown): unknown {
  if (err instanceof VaultError) return err;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : '';
  if (code === '57014') {
    return new VaultError(
      'SERVICE_UNAVAILABLE',
      'The database did not answer within the statement timeout.',
      {
        cause: err,
      },
    );
  }
  if (
    (code !== undefined && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_STATES.test(code))) ||
    /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|not queryable/i.test(
      message,
    )
  ) {
    return new VaultError('SERVICE_UNAVAILABLE', 'The database is unreachable; try again shortly.', {
      cause: err,
    });
  }
  return err;
}

import { VaultError } from './catalogue.ts';

/**
 * RATE_LIMITED with the wait, which the HTTP edge turns into a Retry-After header. Thrown by every
 * limit that makes a caller wait: the sign-in throttle, request rate limits, password workers and
 * the sandbox's queue.
 */
export class RateLimitedError extends VaultError {
  declare readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, detail?: string) {
    super(
      'RATE_LIMITED',
      detail ??
        `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
      { retryAfterSeconds },
    );
  }
}

import type { Clock } from '../vault/types.ts';
import { RateLimitedError } from './sign-in-throttle.ts';

export interface RateLimit {
  /** Requests per minute per caller; also the burst a rested caller may send at once. */
  readonly perMinute: number;
  /** Callers tracked at most; the least recently seen are dropped first (they were at rest or gone). */
  readonly maxEntries: number;
}

interface Bucket {
  tokens: number;
  /** Epoch ms of the last refill. */
  at: number;
}

const MINUTE = 60_000;

/**
 * A token bucket per caller (an application, or a signed-in user over all their sessions): every
 * read writes audit entries and costs journal space, so no single credential may grow the vault
 * without bound. In memory; a restart gives everyone a full bucket again, which costs at most one
 * burst per caller.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: RateLimit,
  ) {
    if (!Number.isSafeInteger(limit.perMinute) || limit.perMinute < 1)
      throw new RangeError('perMinute must be a whole number ≥ 1');
  }

  /** Takes one request from `caller`'s bucket; throws RATE_LIMITED with the wait when it is empty. */
  take(caller: string): void {
    const now = this.clock.now().getTime();
    const { perMinute } = this.limit;
    const bucket = this.buckets.get(caller) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (Math.max(0, now - bucket.at) * perMinute) / MINUTE);
    bucket.at = now;
    // Re-inserted, so the map stays ordered by last use and the first entry is the one to evict.
    this.buckets.delete(caller);
    this.buckets.set(caller, bucket);
    while (this.buckets.size > this.limit.maxEntries) {
      const oldest = this.buckets.keys().next();
      if (oldest.done) break;
      this.buckets.delete(oldest.value);
    }
    if (bucket.tokens < 1) {
      const waitMs = ((1 - bucket.tokens) * MINUTE) / perMinute;
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new RateLimitedError(
        seconds,
        `Too many requests for this API key or user (limit ${perMinute} a minute). Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      );
    }
    bucket.tokens -= 1;
  }

  get size(): number {
    return this.buckets.size;
  }
}

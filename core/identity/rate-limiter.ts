import type { Principal } from '../access/principal.ts';
import type { Clock } from '../vault/clock.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';

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
 * Callers one limiter tracks at most (its memory bound): 10,000 buckets of a few dozen bytes. The
 * least recently seen are dropped first, which at worst gives such a caller a fresh burst.
 */
export const RATE_LIMIT_MAX_TRACKED = 10_000;

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

  /**
   * Takes one request from `caller`'s bucket; throws RATE_LIMITED with the wait when it is empty.
   * `whose` names the bucket in the refusal ("this API key or user").
   */
  take(caller: string, whose = 'this API key or user'): void {
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
        `Too many requests for ${whose} (limit ${perMinute} a minute). Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      );
    }
    bucket.tokens -= 1;
  }

  get size(): number {
    return this.buckets.size;
  }
}

/**
 * Who a request is counted as:
 * - `principal`: an API key's application (or a signed-in user, over all their sessions);
 * - `proxy`: a request without an API key through a `require_auth: false` proxy, per proxy;
 * - `address`: a request that named no proxy this vault knows, per client address.
 */
export type RateLimitedCaller =
  | { readonly kind: 'principal'; readonly principal: Principal }
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'proxy'; readonly proxyId: string }
  | { readonly kind: 'address'; readonly address: string };

/**
 * The request rate limit of a server: one rate (`perMinute`) for every kind of caller, each with a
 * bucket of its own. Credentials and proxies share one limiter; requests that named nothing known
 * (a made-up proxy key) are counted per client address in a second one, so inventing keys neither
 * buys fresh buckets nor evicts the buckets of real callers from the first.
 */
export class RequestRateLimits {
  private readonly known: RateLimiter;
  private readonly strangers: RateLimiter;

  constructor(clock: Clock, perMinute: number) {
    this.known = new RateLimiter(clock, { perMinute, maxEntries: RATE_LIMIT_MAX_TRACKED });
    this.strangers = new RateLimiter(clock, { perMinute, maxEntries: RATE_LIMIT_MAX_TRACKED });
  }

  /** Counts one request of `caller`; throws RATE_LIMITED (with the wait) beyond the rate. */
  take(caller: RateLimitedCaller): void {
    switch (caller.kind) {
      case 'principal': {
        const { principal } = caller;
        if (principal.kind === 'user') this.known.take(`user:${principal.userId}`);
        else
          this.known.take(
            principal.kind === 'application' ? `application:${principal.applicationId}` : 'api-key',
          );
        return;
      }
      case 'user':
        this.known.take(`user:${caller.userId}`);
        return;
      case 'proxy':
        this.known.take(`proxy:${caller.proxyId}`, 'this proxy without an API key');
        return;
      case 'address':
        this.strangers.take(`address:${caller.address}`, 'unknown proxy keys from this address');
        return;
    }
  }

  /** Buckets held: [credentials and proxies, client addresses]. */
  get sizes(): readonly [number, number] {
    return [this.known.size, this.strangers.size];
  }
}

/** The limits for `perMinute` requests per caller on `clock`; null when off (0 or absent). */
export function requestRateLimits(perMinute: number | undefined, clock: Clock): RequestRateLimits | null {
  return perMinute === undefined || perMinute === 0 ? null : new RequestRateLimits(clock, perMinute);
}

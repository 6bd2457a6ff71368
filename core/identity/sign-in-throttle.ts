import { VaultError } from '../errors/catalogue.ts';
import type { Clock } from '../vault/types.ts';

/** Exponential backoff: after `free` failures, wait `baseMs`, then twice as long after each further one. */
export interface Backoff {
  readonly free: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

export interface ThrottleLimits {
  /** Per (account, address): stops guessing one account's password from one place. */
  readonly pair: Backoff;
  /** Per address, over all accounts: stops one place from spraying passwords over many accounts. */
  readonly address: Backoff;
  /**
   * Per account, over all addresses. It never blocks, or anyone could lock the owner out by
   * failing from elsewhere; above `accountSlowAfter` failures each attempt waits `accountDelayMs`.
   */
  readonly accountSlowAfter: number;
  readonly accountDelayMs: number;
  /** A counter with no failure for this long starts again from zero. */
  readonly forgetAfterMs: number;
  /** Per counter map; the least recently failed entries are dropped first, so memory stays bounded. */
  readonly maxEntries: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * The numbers (also in docs/security.md, "Sign-in"):
 * - (account, address): 5 failures free, then 1 s, 2 s, 4 s, … capped at 15 min: about 4 guesses
 *   an hour once the cap is reached.
 * - address: 20 failures free (several people may share a NAT), then the same doubling to 15 min.
 * - account: from 10 failures (any address), a fixed 250 ms delay per attempt; never a block.
 * - counters are forgotten after 1 h without a failure; at most 10,000 entries per counter.
 * Argon2id (≈ 0.3 s per attempt) and the 8-character minimum carry the rest against a
 * distributed guesser that spreads over many addresses.
 */
export const SIGN_IN_LIMITS: ThrottleLimits = {
  pair: { free: 5, baseMs: SECOND, maxMs: 15 * MINUTE },
  address: { free: 20, baseMs: SECOND, maxMs: 15 * MINUTE },
  accountSlowAfter: 10,
  accountDelayMs: 250,
  forgetAfterMs: 60 * MINUTE,
  maxEntries: 10_000,
};

/** RATE_LIMITED with the wait, which the HTTP edge turns into a Retry-After header. */
export class RateLimitedError extends VaultError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super(
      'RATE_LIMITED',
      `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

interface Counter {
  failures: number;
  /** Epoch ms of the last failure. */
  last: number;
}

class Counters {
  private readonly entries = new Map<string, Counter>();

  constructor(private readonly limits: Pick<ThrottleLimits, 'forgetAfterMs' | 'maxEntries'>) {}

  get(key: string, now: number): Counter | undefined {
    const counter = this.entries.get(key);
    if (counter && now - counter.last >= this.limits.forgetAfterMs) {
      this.entries.delete(key);
      return undefined;
    }
    return counter;
  }

  increment(key: string, now: number): void {
    const counter = this.get(key, now) ?? { failures: 0, last: now };
    counter.failures++;
    counter.last = now;
    // Re-inserting keeps the map ordered by last failure, so the oldest entry is evicted first.
    this.entries.delete(key);
    this.entries.set(key, counter);
    while (this.entries.size > this.limits.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  decrement(key: string): void {
    const counter = this.entries.get(key);
    if (!counter) return;
    counter.failures--;
    if (counter.failures <= 0) this.entries.delete(key);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Milliseconds until the next attempt is allowed; 0 when it is allowed now. */
function waitFor(counter: Counter | undefined, backoff: Backoff, now: number): number {
  if (!counter || counter.failures < backoff.free) return 0;
  const exponent = Math.min(counter.failures - backoff.free, 30);
  const delay = Math.min(backoff.baseMs * 2 ** exponent, backoff.maxMs);
  return Math.max(0, counter.last + delay - now);
}

export interface SignInAttempt {
  /** Wait this long before verifying (the per-account speed bump); 0 usually. */
  readonly delayMs: number;
  /** The password was right: forget this pair's failures and undo this attempt's count. */
  succeeded(): void;
}

/**
 * In-memory sign-in throttle. An attempt counts as a failure from the moment it starts, and a
 * success takes that back: concurrent attempts cannot all slip through before the first failure
 * is recorded. Kept in memory on purpose: a restart forgets it, but writing every failed attempt
 * to the journal would hand an attacker a disk-filling lever.
 */
export class SignInThrottle {
  private readonly pairs: Counters;
  private readonly addresses: Counters;
  private readonly accounts: Counters;

  constructor(
    private readonly clock: Clock,
    private readonly limits: ThrottleLimits = SIGN_IN_LIMITS,
  ) {
    this.pairs = new Counters(limits);
    this.addresses = new Counters(limits);
    this.accounts = new Counters(limits);
  }

  /** Throws RATE_LIMITED when this account from this address, or this address, must wait. */
  begin(account: string, address: string): SignInAttempt {
    const now = this.clock.now().getTime();
    const pairKey = `${account}\u0000${address}`;
    const wait = Math.max(
      waitFor(this.pairs.get(pairKey, now), this.limits.pair, now),
      waitFor(this.addresses.get(address, now), this.limits.address, now),
    );
    if (wait > 0) throw new RateLimitedError(Math.ceil(wait / SECOND));
    const accountFailures = this.accounts.get(account, now)?.failures ?? 0;
    this.pairs.increment(pairKey, now);
    this.addresses.increment(address, now);
    this.accounts.increment(account, now);
    let settled = false;
    return {
      delayMs: accountFailures >= this.limits.accountSlowAfter ? this.limits.accountDelayMs : 0,
      succeeded: () => {
        if (settled) return;
        settled = true;
        this.pairs.delete(pairKey);
        this.addresses.decrement(address);
        this.accounts.decrement(account);
      },
    };
  }

  /** Entries held, for tests of the memory bound. */
  get size(): { pairs: number; addresses: number; accounts: number } {
    return { pairs: this.pairs.size, addresses: this.addresses.size, accounts: this.accounts.size };
  }
}

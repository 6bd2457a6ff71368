import { RateLimitedError } from '../errors/rate-limited.ts';
import type { Clock } from '../vault/clock.ts';
import { normalizeEmail } from './email.ts';

/** The counter key of an e-mail; bounded, since the throttle is in memory (longer e-mails are invalid anyway). */
export function throttleKey(email: string): string {
  return normalizeEmail(email).slice(0, 320);
}

/** Exponential backoff: after `free` failures, wait `baseMs`, then twice as long after each further one. */
export interface Backoff {
  readonly free: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

export interface ThrottleLimits {
  /** Per account, over all addresses: stops guessing one account's password from anywhere. */
  readonly account: Backoff;
  /** A counter with no failure for this long starts again from zero. */
  readonly forgetAfterMs: number;
  /** The least recently failed entries are dropped first, so memory stays bounded. */
  readonly maxEntries: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * The numbers (also in docs/security.md, "Sign-in"): per account, 5 failures free, then 1 s, 2 s,
 * 4 s, … capped at 5 min, about 12 guesses an hour from the whole world once the cap is reached.
 * The cap bounds how long someone who knows an e-mail address can keep its owner waiting. Counters
 * are forgotten after 1 h without a failure; at most 10,000 accounts are tracked. No counter is kept
 * per address: every local caller shares 127.0.0.1 (and every proxied one the proxy's address), so
 * an address counter would let one caller lock out everyone. Argon2id, the 8-character minimum and
 * the common-password list carry the rest against spraying one guess over many accounts.
 */
export const SIGN_IN_LIMITS: ThrottleLimits = {
  account: { free: 5, baseMs: SECOND, maxMs: 5 * MINUTE },
  forgetAfterMs: 60 * MINUTE,
  maxEntries: 10_000,
};

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

  /** Takes back one count; `last` goes back to `previous` unless a later failure moved it on. */
  decrement(key: string, at: number, previous: number | undefined): void {
    const counter = this.entries.get(key);
    if (!counter) return;
    counter.failures--;
    if (counter.failures <= 0) this.entries.delete(key);
    else if (counter.last === at && previous !== undefined) counter.last = previous;
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
  /** The password was right: take back this attempt's count (earlier failures stay counted). */
  succeeded(): void;
}

/**
 * In-memory sign-in throttle, per account. An attempt counts as a failure from the moment it
 * starts and a success takes back only its own count: concurrent guesses cannot all slip through
 * before the first failure is recorded, and the owner signing in does not wipe an attacker's
 * record. Kept in memory on purpose: a restart forgets it, but writing every failed attempt to the
 * journal would hand an attacker a disk-filling lever.
 */
export class SignInThrottle {
  private readonly accounts: Counters;

  constructor(
    private readonly clock: Clock,
    private readonly limits: ThrottleLimits = SIGN_IN_LIMITS,
  ) {
    this.accounts = new Counters(limits);
  }

  /** Throws RATE_LIMITED (with the wait) while this account must wait, whoever is asking. */
  begin(account: string): SignInAttempt {
    const now = this.clock.now().getTime();
    const wait = waitFor(this.accounts.get(account, now), this.limits.account, now);
    if (wait > 0) throw new RateLimitedError(Math.ceil(wait / SECOND));
    const previous = this.accounts.get(account, now)?.last;
    this.accounts.increment(account, now);
    let settled = false;
    return {
      succeeded: () => {
        if (settled) return;
        settled = true;
        this.accounts.decrement(account, now, previous);
      },
    };
  }

  /** Accounts tracked, for tests of the memory bound. */
  get size(): number {
    return this.accounts.size;
  }
}

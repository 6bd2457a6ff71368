import { describe, expect, it } from 'vitest';
import { ManualClock } from '../vault/clock.ts';
import { RATE_LIMIT_MAX_TRACKED, RateLimiter, RequestRateLimits } from './rate-limiter.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';

function refusal(limiter: RateLimiter, caller: string): number | 'ok' {
  try {
    limiter.take(caller);
    return 'ok';
  } catch (error) {
    if (error instanceof RateLimitedError) return error.retryAfterSeconds;
    throw error;
  }
}

describe('request rate limiter', () => {
  it('allows a burst of perMinute, then one request per 60/perMinute seconds', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, { perMinute: 60, maxEntries: 100 });
    for (let i = 0; i < 60; i++) expect(refusal(limiter, 'app:a')).toBe('ok');
    expect(refusal(limiter, 'app:a')).toBe(1);
    clock.advance(1000);
    expect(refusal(limiter, 'app:a')).toBe('ok');
    expect(refusal(limiter, 'app:a')).toBe(1);
    // Another caller has its own bucket.
    expect(refusal(limiter, 'app:b')).toBe('ok');
  });

  it('says how long to wait when the rate is slow', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, { perMinute: 2, maxEntries: 100 });
    limiter.take('k');
    limiter.take('k');
    expect(refusal(limiter, 'k')).toBe(30);
    clock.advance(29_000);
    expect(refusal(limiter, 'k')).toBe(1);
    clock.advance(1000);
    expect(refusal(limiter, 'k')).toBe('ok');
  });

  it('keeps memory bounded', () => {
    const limiter = new RateLimiter(new ManualClock(), { perMinute: 5, maxEntries: 10 });
    for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
    expect(limiter.size).toBe(10);
  });
});

describe('request rate limits of a server', () => {
  const refused = (take: () => void): boolean => {
    try {
      take();
      return false;
    } catch (error) {
      if (error instanceof RateLimitedError) return true;
      throw error;
    }
  };

  it('gives each proxy its own bucket, named in the refusal', () => {
    const limits = new RequestRateLimits(new ManualClock(), 2);
    limits.take({ kind: 'proxy', proxyId: 'p1' });
    limits.take({ kind: 'proxy', proxyId: 'p1' });
    expect(() => limits.take({ kind: 'proxy', proxyId: 'p1' })).toThrow(/this proxy without an API key/);
    expect(refused(() => limits.take({ kind: 'proxy', proxyId: 'p2' }))).toBe(false);
  });

  it('counts strangers apart: a flood of invented addresses neither evicts nor refills a known bucket', () => {
    const limits = new RequestRateLimits(new ManualClock(), 1);
    limits.take({ kind: 'proxy', proxyId: 'p' });
    for (let i = 0; i <= RATE_LIMIT_MAX_TRACKED; i++)
      limits.take({ kind: 'address', address: `198.51.${i}` });
    expect(limits.sizes).toEqual([1, RATE_LIMIT_MAX_TRACKED]);
    expect(refused(() => limits.take({ kind: 'proxy', proxyId: 'p' }))).toBe(true);
  });
});

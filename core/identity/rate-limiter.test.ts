import { describe, expect, it } from 'vitest';
import { ManualClock } from '../vault/clock.ts';
import { RateLimiter } from './rate-limiter.ts';
import { RateLimitedError } from './sign-in-throttle.ts';

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

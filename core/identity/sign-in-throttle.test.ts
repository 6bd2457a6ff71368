import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { ManualClock } from '../vault/clock.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';
import { SIGN_IN_LIMITS, SignInThrottle } from './sign-in-throttle.ts';

/** One failed attempt (begin without success); the retry seconds when refused. */
function fail(throttle: SignInThrottle, account: string): number | 'ok' {
  try {
    throttle.begin(account);
    return 'ok';
  } catch (error) {
    if (error instanceof RateLimitedError) return error.retryAfterSeconds;
    throw error;
  }
}

describe('sign-in throttle', () => {
  it('lets 5 failures of an account through, then doubles the wait from 1 s up to 5 min', () => {
    const clock = new ManualClock();
    const throttle = new SignInThrottle(clock);
    for (let i = 0; i < 5; i++) expect(fail(throttle, 'a@x')).toBe('ok');
    const waits: number[] = [];
    for (let i = 0; i < 11; i++) {
      const refused = fail(throttle, 'a@x');
      if (refused === 'ok') throw new Error('expected a refusal');
      waits.push(refused);
      clock.advance(refused * 1000);
      expect(fail(throttle, 'a@x')).toBe('ok');
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
  });

  it('refuses with RATE_LIMITED, saying when to retry', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 5; i++) throttle.begin('a@x');
    let caught: unknown;
    try {
      throttle.begin('a@x');
    } catch (error) {
      caught = error;
    }
    expect(isVaultError(caught, 'RATE_LIMITED')).toBe(true);
    expect((caught as RateLimitedError).retryAfterSeconds).toBe(1);
    expect((caught as RateLimitedError).message).toContain('Try again in 1 second');
  });

  it('failing many accounts never delays another account', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 1000; i++) expect(fail(throttle, `user${i}@x`)).toBe('ok');
    expect(fail(throttle, 'owner@x')).toBe('ok');
  });

  it('successes are never counted, and take back only their own attempt', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 100; i++) throttle.begin('a@x').succeeded();
    for (let i = 0; i < 4; i++) throttle.begin('a@x');
    throttle.begin('a@x').succeeded();
    // The four earlier failures still count: one more is free, then a wait.
    expect(fail(throttle, 'a@x')).toBe('ok');
    expect(fail(throttle, 'a@x')).toBe(1);
  });

  it('a success does not push back the time the next attempt is allowed', () => {
    const clock = new ManualClock();
    const throttle = new SignInThrottle(clock);
    for (let i = 0; i < 5; i++) throttle.begin('a@x');
    clock.advance(1000);
    throttle.begin('a@x');
    clock.advance(2000);
    throttle.begin('a@x').succeeded();
    expect(fail(throttle, 'a@x')).toBe('ok');
  });

  it('counts an attempt from its start, so concurrent guesses cannot all slip through', () => {
    const throttle = new SignInThrottle(new ManualClock());
    const started = [1, 2, 3, 4, 5].map(() => throttle.begin('a@x'));
    expect(started).toHaveLength(5);
    expect(fail(throttle, 'a@x')).toBe(1);
  });

  it('forgets counters after an hour without failures', () => {
    const clock = new ManualClock();
    const throttle = new SignInThrottle(clock);
    for (let i = 0; i < 5; i++) throttle.begin('a@x');
    clock.advance(SIGN_IN_LIMITS.forgetAfterMs);
    for (let i = 0; i < 5; i++) expect(fail(throttle, 'a@x')).toBe('ok');
  });

  it('keeps memory bounded, dropping the oldest entries', () => {
    const throttle = new SignInThrottle(new ManualClock(), { ...SIGN_IN_LIMITS, maxEntries: 100 });
    for (let i = 0; i < 1000; i++) throttle.begin(`u${i}@x`);
    expect(throttle.size).toBe(100);
  });
});

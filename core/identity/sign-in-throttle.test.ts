import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { ManualClock } from '../vault/clock.ts';
import { RateLimitedError, SIGN_IN_LIMITS, SignInThrottle } from './sign-in-throttle.ts';

/** One failed attempt (begin without success); the retry seconds when refused. */
function fail(throttle: SignInThrottle, account: string, address: string): number | 'ok' {
  try {
    throttle.begin(account, address);
    return 'ok';
  } catch (error) {
    if (error instanceof RateLimitedError) return error.retryAfterSeconds;
    throw error;
  }
}

describe('sign-in throttle', () => {
  it('lets 5 failures of a pair through, then doubles the wait from 1 s up to 15 min', () => {
    const clock = new ManualClock();
    const throttle = new SignInThrottle(clock);
    for (let i = 0; i < 5; i++) expect(fail(throttle, 'a@x', '10.0.0.1')).toBe('ok');
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const refused = fail(throttle, 'a@x', '10.0.0.1');
      if (refused === 'ok') throw new Error('expected a refusal');
      waits.push(refused);
      clock.advance(refused * 1000);
      expect(fail(throttle, 'a@x', '10.0.0.1')).toBe('ok');
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
  });

  it('refuses with RATE_LIMITED, saying when to retry', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 5; i++) throttle.begin('a@x', 'addr');
    let caught: unknown;
    try {
      throttle.begin('a@x', 'addr');
    } catch (error) {
      caught = error;
    }
    expect(isVaultError(caught, 'RATE_LIMITED')).toBe(true);
    expect((caught as RateLimitedError).retryAfterSeconds).toBe(1);
    expect((caught as RateLimitedError).message).toContain('Try again in 1 second');
  });

  it('never blocks the account from another address; only adds the fixed delay', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 5; i++) throttle.begin('owner@x', 'attacker-1');
    for (let i = 0; i < 5; i++) throttle.begin('owner@x', 'attacker-2');
    expect(fail(throttle, 'owner@x', 'attacker-1')).not.toBe('ok');
    const owner = throttle.begin('owner@x', 'home');
    expect(owner.delayMs).toBe(SIGN_IN_LIMITS.accountDelayMs);
    owner.succeeded();
    expect(throttle.begin('someone@x', 'home').delayMs).toBe(0);
  });

  it('throttles an address spraying many accounts after 20 failures', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 20; i++) expect(fail(throttle, `user${i}@x`, 'sprayer')).toBe('ok');
    expect(fail(throttle, 'fresh@x', 'sprayer')).toBe(1);
    expect(fail(throttle, 'fresh@x', 'elsewhere')).toBe('ok');
  });

  it('a success resets its pair and takes back its own count', () => {
    const throttle = new SignInThrottle(new ManualClock());
    for (let i = 0; i < 4; i++) throttle.begin('a@x', 'addr');
    throttle.begin('a@x', 'addr').succeeded();
    for (let i = 0; i < 5; i++) expect(fail(throttle, 'a@x', 'addr')).toBe('ok');
    expect(fail(throttle, 'a@x', 'addr')).toBe(1);
  });

  it('counts an attempt from its start, so concurrent guesses cannot all slip through', () => {
    const throttle = new SignInThrottle(new ManualClock());
    // Six attempts begun before any has finished: the sixth is already refused.
    const started = [1, 2, 3, 4, 5].map(() => throttle.begin('a@x', 'addr'));
    expect(started).toHaveLength(5);
    expect(fail(throttle, 'a@x', 'addr')).toBe(1);
  });

  it('forgets counters after an hour without failures', () => {
    const clock = new ManualClock();
    const throttle = new SignInThrottle(clock);
    for (let i = 0; i < 5; i++) throttle.begin('a@x', 'addr');
    clock.advance(SIGN_IN_LIMITS.forgetAfterMs);
    for (let i = 0; i < 5; i++) expect(fail(throttle, 'a@x', 'addr')).toBe('ok');
  });

  it('keeps memory bounded, dropping the oldest entries', () => {
    const throttle = new SignInThrottle(new ManualClock(), { ...SIGN_IN_LIMITS, maxEntries: 100 });
    for (let i = 0; i < 1000; i++) throttle.begin(`u${i}@x`, `10.0.${i >> 8}.${i & 255}`);
    expect(throttle.size).toEqual({ pairs: 100, addresses: 100, accounts: 100 });
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countRows, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';
import { startExpirySweeper } from './sweeper.ts';

/**
 * The sweeper's interval runs on fake timers moved by hand (only setInterval is faked: the vault's
 * own I/O keeps real timers; vi.waitFor is not used, as it moves fake timers itself), so every tick is one the test asked for.
 */
describe('startExpirySweeper', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture(); // the clock starts at 2026-01-01T00:00:00Z
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await f.close();
  });

  const expiring = (at: string) => f.services.tokens.create(f.app, { data: at, expires_at: at });

  it('sweeps at once, then on every tick, never two runs at a time, and stops', async () => {
    await expiring('2026-01-01T00:00:01Z');
    f.clock.advance(2000);
    const sweeps: number[] = [];
    let swept = (): void => undefined;
    /**
     * Resolves once the sweeper has reported `count` sweeps in all and that run has ended (onSweep
     * is called just before; the turn of the event loop lets its promise chain settle).
     */
    const sweepsReach = async (count: number): Promise<void> => {
      await new Promise<void>((resolve) => {
        swept = () => {
          if (sweeps.length >= count) resolve();
        };
        swept();
      });
      await new Promise((resolve) => setImmediate(resolve));
    };
    const stop = startExpirySweeper(f.services, {
      intervalMs: 20,
      onSweep: (n) => {
        sweeps.push(n);
        swept();
      },
    });
    await sweepsReach(1);
    expect(sweeps).toEqual([1]);

    await expiring('2026-01-01T00:00:03Z');
    f.clock.advance(2000);
    vi.advanceTimersByTime(20);
    await sweepsReach(2);
    expect(sweeps).toEqual([1, 1]);
    expect(await countRows(f, 'tokens')).toBe(0);

    // Three ticks while the first of them is still sweeping: one run.
    vi.advanceTimersByTime(60);
    await sweepsReach(3);
    expect(sweeps).toEqual([1, 1, 0]);
    vi.advanceTimersByTime(20);
    await sweepsReach(4);
    expect(sweeps).toEqual([1, 1, 0, 0]);

    await stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(sweeps).toEqual([1, 1, 0, 0]);
  });

  it('refuses an interval that is not a positive whole number of milliseconds', () => {
    for (const intervalMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => startExpirySweeper(f.services, { intervalMs })).toThrow(RangeError);
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});

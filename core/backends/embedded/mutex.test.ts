import { describe, expect, it } from 'vitest';
import { Mutex } from './mutex.ts';

describe('Mutex.runIfFree', () => {
  it('runs at once while nobody holds or waits for the turn, and not otherwise', async () => {
    const mutex = new Mutex();
    expect(mutex.runIfFree(() => 1)).toBe(1);
    const release = await mutex.acquire();
    expect(mutex.runIfFree(() => 2)).toBeUndefined();
    const waiting = mutex.acquire(); // a waiter keeps its place after the release
    release();
    expect(mutex.runIfFree(() => 3)).toBeUndefined();
    (await waiting)();
    expect(mutex.runIfFree(() => 4)).toBe(4);
  });

  it('counts a release called twice once', async () => {
    const mutex = new Mutex();
    const release = await mutex.acquire();
    release();
    release();
    const again = await mutex.acquire();
    expect(mutex.runIfFree(() => 5)).toBeUndefined();
    again();
    expect(mutex.runIfFree(() => 6)).toBe(6);
  });
});

import { describe, expect, it } from 'vitest';
import { FREE_SPACE_MAX_AGE_MS, FREE_SPACE_MAX_WRITTEN, FreeSpaceGauge } from './free-space.ts';

const MIB = 1024 * 1024;

function gauge(start: number) {
  const state = { free: start, now: 0, written: 0, reads: 0 };
  const releases: Array<() => void> = [];
  let hold = false;
  const g = new FreeSpaceGauge(
    async () => {
      state.reads++;
      if (hold) await new Promise<void>((resolve) => releases.push(resolve));
      return state.free;
    },
    () => state.now,
    () => state.written,
  );
  return {
    g,
    state,
    holdReads(on: boolean) {
      hold = on;
    },
    release() {
      for (const r of releases.splice(0)) r();
    },
  };
}

describe('free-space gauge', () => {
  it('reuses a reading within its age and written bytes, counting the writes', async () => {
    const { g, state } = gauge(1000 * MIB);
    expect(await g.freeBytes(64 * MIB)).toBe(1000 * MIB);
    state.written += 3 * MIB;
    state.free = 1 * MIB; // another program filled the disk: unseen until the reading ages
    state.now += FREE_SPACE_MAX_AGE_MS;
    expect(await g.freeBytes(64 * MIB)).toBe(997 * MIB);
    expect(state.reads).toBe(1);
    state.now += 1;
    expect(await g.freeBytes(64 * MIB)).toBe(1 * MIB);
    expect(state.reads).toBe(2);
  });

  it('reads afresh after more than its written bytes, after a clock step back, and after invalidate', async () => {
    const { g, state } = gauge(1000 * MIB);
    await g.freeBytes(0);
    state.written += FREE_SPACE_MAX_WRITTEN + 1;
    await g.freeBytes(0);
    expect(state.reads).toBe(2);
    state.now -= 5;
    await g.freeBytes(0);
    expect(state.reads).toBe(3);
    g.invalidate();
    await g.freeBytes(0);
    expect(state.reads).toBe(4);
  });

  it('never refuses on an estimate: below the reserve it reads again', async () => {
    const { g, state } = gauge(70 * MIB);
    await g.freeBytes(64 * MIB);
    state.written += 7 * MIB; // the estimate falls to 63 MiB, but the disk was grown meanwhile
    state.free = 500 * MIB;
    expect(await g.freeBytes(64 * MIB)).toBe(500 * MIB);
    expect(state.reads).toBe(2);
  });

  it('shares one reading among concurrent callers and drops one begun before invalidate', async () => {
    const { g, state, holdReads, release } = gauge(1000 * MIB);
    holdReads(true);
    const a = g.freeBytes(0);
    const b = g.freeBytes(0);
    g.invalidate();
    release();
    expect(await a).toBe(1000 * MIB);
    expect(await b).toBe(1000 * MIB);
    expect(state.reads).toBe(1);
    holdReads(false);
    await g.freeBytes(0); // the shared reading was not kept: read again
    expect(state.reads).toBe(2);
  });
});

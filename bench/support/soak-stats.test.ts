import { describe, expect, it } from 'vitest';
import { IntervalCounter, growthAfterWarmup, quantile, type SoakSample } from './soak-stats.ts';

const MIB = 1024 * 1024;

describe('quantile', () => {
  it('takes the nearest rank', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(hundred, 0.99)).toBe(99);
    expect(quantile(hundred, 0.5)).toBe(50);
    expect(quantile(hundred, 1)).toBe(100);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.99)).toBeNaN();
  });
});

describe('IntervalCounter', () => {
  it("counts an interval's answers, errors and p99, then starts the next one empty", () => {
    const counter = new IntervalCounter();
    for (let i = 1; i <= 200; i += 1) counter.answer(200, i);
    counter.answer(507, 1);
    counter.answer(301, 1);
    counter.failure();
    const first = counter.take();
    expect(first).toEqual({ requests: 203, errors: 3, p50Ms: 99, p99Ms: 198 });
    const second = counter.take();
    expect(second.requests).toBe(0);
    expect(second.errors).toBe(0);
    expect(second.p99Ms).toBeNaN();
  });
});

describe('growthAfterWarmup', () => {
  const sample = (elapsedS: number, requests: number, rssMiB: number, diskBytes = 0): SoakSample => ({
    elapsedS,
    requests,
    rssBytes: rssMiB * MIB,
    heapUsedBytes: (rssMiB / 2) * MIB,
    externalBytes: (rssMiB / 4) * MIB,
    diskBytes,
  });

  it('counts from the first sample at or after the warm-up to the last', () => {
    const growth = growthAfterWarmup(
      [
        sample(10, 50_000, 150),
        sample(20.02, 100_000, 200, 1_000_000),
        sample(30, 600_000, 300, 2_000_000),
        sample(40, 1_100_000, 456, 201_000_000),
      ],
      20,
    );
    expect(growth).toEqual({
      fromS: 20.02,
      toS: 40,
      requests: 1_000_000,
      rssGrowthMiB: 256,
      rssMiBPerMillion: 256,
      heapMiBPerMillion: 128,
      externalMiBPerMillion: 64,
      diskBytesPerRequest: 200,
    });
  });

  it('is null when nothing was answered after the warm-up', () => {
    expect(growthAfterWarmup([sample(10, 50_000, 150)], 20)).toBeNull();
    expect(growthAfterWarmup([sample(20, 50_000, 150), sample(25, 50_000, 160)], 20)).toBeNull();
    expect(growthAfterWarmup([], 20)).toBeNull();
  });
});

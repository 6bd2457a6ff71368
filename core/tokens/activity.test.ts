import { describe, expect, it } from 'vitest';
import { seededRandom } from '../backends/embedded/test-support/power-loss-fs.ts';
import { activityMonth } from './activity.ts';

/** The month as the vault has always named it. */
const reference = (at: Date): string => at.toISOString().slice(0, 7);

describe('activityMonth', () => {
  it('names the UTC month of any instant, asked in any order (the kept month never answers for another)', () => {
    const random = seededRandom(11);
    const edges = [
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 1, 1),
      Date.UTC(2028, 2, 1),
      Date.UTC(1970, 0, 1),
      new Date(0).setUTCFullYear(50, 0, 1),
      new Date(0).setUTCFullYear(1950, 0, 1),
      new Date(0).setUTCFullYear(0, 11, 1),
      new Date(0).setUTCFullYear(-1, 0, 1),
      Date.UTC(9999, 11, 1),
    ];
    const instants: number[] = [];
    for (const edge of edges) instants.push(edge - 1, edge, edge + 1);
    // Years below 100 are not 1900 + year: asked right after one, January 1950 is still 1950.
    instants.push(new Date(0).setUTCFullYear(50, 0, 15), Date.UTC(1950, 0, 15));
    for (let i = 0; i < 3000; i += 1) {
      instants.push(Math.round((random() - 0.3) * 4e14));
      // Runs within one month, as reads ask.
      const base = instants.at(-1)!;
      for (let k = 0; k < 3; k += 1) instants.push(base + Math.round(random() * 3e9));
    }
    for (const time of instants) {
      const at = new Date(time);
      expect(activityMonth(at), at.toISOString()).toBe(reference(at));
    }
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => activityMonth(new Date(Number.NaN))).toThrow(RangeError);
  });
});

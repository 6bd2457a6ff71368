import { describe, expect, it } from 'vitest';
import { formatCount, niceCeiling, usageLevel } from './numbers';

describe('usageLevel', () => {
  it('is over once above the included number, never fine', () => {
    expect(usageLevel(1001, 1000)).toBe('over');
    expect(usageLevel(1000, 1000)).toBe('near');
    expect(usageLevel(800, 1000)).toBe('near');
    expect(usageLevel(799, 1000)).toBe('within');
  });
});

describe('formatCount', () => {
  it('separates thousands', () => {
    expect(formatCount(1234567)).toMatch(/^1\D234\D567$/);
  });
});

describe('niceCeiling', () => {
  it('ends an axis on a round number at or above the top', () => {
    expect([1, 7, 11, 1100, 1157, 2600, 90_000].map(niceCeiling)).toEqual([
      1, 10, 20, 2000, 2000, 5000, 100_000,
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MIX,
  READS_ONLY_MIX,
  describeMix,
  parseMix,
  rotatedFor,
  weightedSequence,
} from './soak-mix.ts';

describe('parseMix', () => {
  it('reads named weights; the kinds not named weigh 0', () => {
    expect(parseMix('read=90, proxy=10')).toEqual({ read: 90, tokenize: 0, search: 0, react: 0, proxy: 10 });
  });

  it('round-trips through describeMix', () => {
    expect(parseMix(describeMix(DEFAULT_MIX))).toEqual(DEFAULT_MIX);
    expect(describeMix(READS_ONLY_MIX)).toBe('read=1');
  });

  it.each([
    ['reads=1', /unknown kind "reads"/],
    ['read', /whole weight/],
    ['read=1.5', /whole weight/],
    ['read=-1', /whole weight/],
    ['read=1=2', /whole weight/],
    ['read=1001', /whole weight/],
    ['read=1,read=2', /given twice/],
    ['read=0,proxy=0', /every weight is 0/],
  ])('refuses %s', (text, message) => {
    expect(() => parseMix(text)).toThrow(message);
  });
});

describe('weightedSequence', () => {
  it('holds each kind as often as its weight over the common divisor', () => {
    const sequence = weightedSequence(DEFAULT_MIX);
    expect(sequence).toHaveLength(20);
    expect(sequence.filter((k) => k === 'read')).toHaveLength(16);
    for (const kind of ['tokenize', 'search', 'react', 'proxy'] as const) {
      expect(sequence.filter((k) => k === kind)).toHaveLength(1);
    }
  });

  it('spreads the kinds out instead of grouping them', () => {
    expect(weightedSequence(parseMix('read=2,proxy=2'))).toEqual(['read', 'proxy']);
    const sequence = weightedSequence(parseMix('read=3,tokenize=1'));
    expect(sequence).toHaveLength(4);
    expect(sequence.filter((k) => k === 'tokenize')).toHaveLength(1);
    // No two requests of the rarer kinds side by side in the default mix.
    const rare = weightedSequence(DEFAULT_MIX).map((k) => k !== 'read');
    expect(rare.some((r, i) => r && rare[i + 1] === true)).toBe(false);
  });

  it('is one read for reads only', () => {
    expect(weightedSequence(READS_ONLY_MIX)).toEqual(['read']);
  });
});

describe('rotatedFor', () => {
  it('starts each connection at its own place in the cycle', () => {
    const cycle = ['a', 'b', 'c', 'd'];
    expect([0, 1, 2, 3].map((i) => rotatedFor(cycle, i, 4)[0])).toEqual(['a', 'b', 'c', 'd']);
    expect(rotatedFor(cycle, 1, 2)).toEqual(['c', 'd', 'a', 'b']);
    expect([0, 1, 2].map((i) => rotatedFor(cycle, i, 50)[0])).toEqual(['a', 'a', 'a']);
    expect(rotatedFor(cycle, 49, 50)).toEqual(['d', 'a', 'b', 'c']);
  });
});

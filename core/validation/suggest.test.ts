import { describe, expect, it } from 'vitest';
import { didYouMean, didYouMeanSuffix } from './suggest.ts';

describe('didYouMean', () => {
  const types = ['private', 'public', 'management'];

  it('names the nearest valid value for a near miss, in its own spelling', () => {
    expect(didYouMean('privat', types)).toBe('private');
    expect(didYouMean('PUBLC', types)).toBe('public');
    expect(didYouMean('tokn:read', ['token:read', 'token:create', 'log:read'])).toBe('token:read');
  });

  it('suggests nothing for a wild guess or an empty word', () => {
    expect(didYouMean('desktop', types)).toBeUndefined();
    expect(didYouMean('x', types)).toBeUndefined();
    expect(didYouMean('', types)).toBeUndefined();
  });

  it('reads as a suffix of a message', () => {
    expect(didYouMeanSuffix('privat', types)).toBe(' (did you mean private?)');
    expect(didYouMeanSuffix('desktop', types)).toBe('');
  });
});

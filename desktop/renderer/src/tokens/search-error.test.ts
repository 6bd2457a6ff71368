import { describe, expect, it } from 'vitest';
import { searchErrorPosition, splitAt } from './search-error';

describe('search error position', () => {
  it('reads the position the server names', () => {
    expect(searchErrorPosition(['syntax error at position 7'], 'type:a AND (')).toBe(7);
    expect(searchErrorPosition(['the query is empty'], '')).toBeNull();
  });

  it('never points past the end of the query', () => {
    expect(searchErrorPosition(['syntax error at position 99'], 'id:')).toBe(3);
  });

  it('splits the query around the marked character', () => {
    expect(splitAt('type:card AND', 5)).toEqual({ before: 'type:', at: 'c', after: 'ard AND' });
    expect(splitAt('id:', 3)).toEqual({ before: 'id:', at: '', after: '' });
  });
});

import { describe, expect, it } from 'vitest';
import { wholeListJson } from './pages.ts';

describe('wholeListJson', () => {
  it('is the API page envelope holding every item in one page', () => {
    expect(wholeListJson(['a', 'b'])).toEqual({
      pagination: { total_items: 2, page_number: 1, page_size: 2, total_pages: 1 },
      data: ['a', 'b'],
    });
    expect(wholeListJson([])).toEqual({
      pagination: { total_items: 0, page_number: 1, page_size: 1, total_pages: 0 },
      data: [],
    });
  });
});

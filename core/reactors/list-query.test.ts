import { describe, expect, it } from 'vitest';
import { listQuery } from './list-query.ts';

const items = [
  { id: 'a1', name: 'Card check' },
  { id: 'b2', name: 'Address lookup' },
  { id: 'c3', name: 'card refund' },
];

describe('listQuery', () => {
  it('keeps the ids asked for (any case) whose name matches, and pages them', () => {
    expect(listQuery({ name: 'card' }, { page: 1, size: 10 }).page(items)).toEqual({
      total: 2,
      items: [items[0], items[2]],
    });
    // With a `*` the pattern covers the whole name.
    expect(listQuery({ name: '*lookup' }, { page: 1, size: 10 }).page(items).items).toEqual([items[1]]);
    expect(listQuery({ name: 'card*k' }, { page: 1, size: 10 }).page(items).items).toEqual([items[0]]);
    const byIds = listQuery({ ids: ['C3', 'B2'] }, { page: 1, size: 10 });
    expect(byIds.ids).toEqual(['c3', 'b2']);
    expect(byIds.page(items).items).toEqual([items[1], items[2]]);
    expect(listQuery({ ids: [] }, { page: 1, size: 10 }).page(items)).toEqual({ total: 0, items: [] });
    expect(listQuery({}, { page: 2, size: 2 }).page(items)).toEqual({ total: 3, items: [items[2]] });
  });

  it('checks the page before anything is read', () => {
    expect(() => listQuery({}, { page: 0, size: 10 })).toThrow(/validation/i);
  });
});

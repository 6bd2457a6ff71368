import { describe, expect, it } from 'vitest';
import { entityIdsOf, entryMatches, type FilterableEntry } from './log-filter.ts';

const entry: FilterableEntry = {
  entity_type: 'token',
  entity_id: 'search',
  entity_ids: JSON.stringify(['t1', 't2']),
  actor_id: 'app-1',
  actor_type: 'application',
  operation: 'read',
  created_at: '2026-03-01T10:00:00.000Z',
};

describe('entryMatches', () => {
  it('passes an entry that matches every field set', () => {
    expect(entryMatches(entry, {})).toBe(true);
    expect(
      entryMatches(entry, {
        entityType: 'token',
        actorId: 'app-1',
        actorType: 'application',
        operation: 'read',
        startDate: '2026-03-01T10:00:00.000Z',
        endDate: '2026-03-01T10:00:00.001Z',
      }),
    ).toBe(true);
  });

  it('finds an id among the ids one entry stands for, and only there', () => {
    expect(entryMatches(entry, { entityId: 't2' })).toBe(true);
    expect(entryMatches(entry, { entityId: 'search' })).toBe(true);
    expect(entryMatches(entry, { entityId: 't' })).toBe(false);
    expect(entryMatches({ ...entry, entity_ids: null }, { entityId: 't1' })).toBe(false);
  });

  it('refuses on any field that differs; the end date is exclusive', () => {
    expect(entryMatches(entry, { entityType: 'card' })).toBe(false);
    expect(entryMatches(entry, { actorType: 'user' })).toBe(false);
    expect(entryMatches(entry, { operation: 'update' })).toBe(false);
    expect(entryMatches(entry, { endDate: '2026-03-01T10:00:00.000Z' })).toBe(false);
    expect(entryMatches(entry, { startDate: '2026-03-01T10:00:00.001Z' })).toBe(false);
  });

  it('reads the stored id list, ignoring anything that is not a string', () => {
    expect(entityIdsOf('["a",1,"b"]')).toEqual(['a', 'b']);
    expect(entityIdsOf(null)).toEqual([]);
  });
});

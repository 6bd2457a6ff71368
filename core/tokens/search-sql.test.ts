import { describe, expect, it } from 'vitest';
import { parseSearchQuery } from './search-query.ts';
import { requiresDataTerm } from './search-sql.ts';

describe('requiresDataTerm', () => {
  it.each([
    ['data:a', true],
    ['data:a AND type:card', true],
    ['type:card AND (container:"/x/" AND data:b)', true],
    ['type:card', false],
    ['data:a OR type:card', false],
    ['NOT data:a', false],
    ['(data:a OR data:b) AND type:card', false],
  ])('%s → %s', (query, expected) => {
    expect(requiresDataTerm(parseSearchQuery(query))).toBe(expected);
  });
});

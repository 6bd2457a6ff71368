import { describe, expect, it } from 'vitest';
import { OBJECT_MEMBER_KEYS as OBJECT_MEMBERS } from '../test-support/object-members.ts';
import { gatheredHeaders, joinedHeaders } from './header-record.ts';

describe('header records', () => {
  it('gather every value of a repeated name, in order, and keep the others as they are', () => {
    const pairs: Array<[string, string]> = [
      ['accept', 'a'],
      ['x-list', '1'],
      ['x-list', '2'],
      ['x-list', '3'],
    ];
    expect({ ...gatheredHeaders(pairs) }).toEqual({ accept: 'a', 'x-list': ['1', '2', '3'] });
  });

  it('keep names that are members of a plain object as headers of their own', () => {
    const pairs = OBJECT_MEMBERS.flatMap((name): Array<[string, string]> => [
      [name, `${name}-1`],
      [name, `${name}-2`],
    ]);
    const gathered = gatheredHeaders(pairs);
    const joined = joinedHeaders(pairs);
    expect(Object.keys(gathered)).toEqual(OBJECT_MEMBERS);
    expect(Object.keys(joined)).toEqual(OBJECT_MEMBERS);
    for (const name of OBJECT_MEMBERS) {
      expect(Object.getOwnPropertyDescriptor(gathered, name)?.value).toEqual([`${name}-1`, `${name}-2`]);
      expect(Object.getOwnPropertyDescriptor(joined, name)?.value).toBe(`${name}-1, ${name}-2`);
    }
    // Iterating them finds nothing inherited.
    const seen: string[] = [];
    for (const name in gathered) seen.push(name);
    expect(seen).toEqual(OBJECT_MEMBERS);
  });

  it('join a repeated name with ", "', () => {
    expect({
      ...joinedHeaders([
        ['a', '1'],
        ['a', '2'],
        ['b', '3'],
      ]),
    }).toEqual({ a: '1, 2', b: '3' });
  });
});

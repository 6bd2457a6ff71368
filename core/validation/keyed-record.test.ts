import { describe, expect, it } from 'vitest';
import { OBJECT_MEMBER_KEYS as OBJECT_MEMBERS } from '../test-support/object-members.ts';
import { keyedRecord } from './keyed-record.ts';

describe('keyedRecord', () => {
  it('holds nothing under any key until it is written', () => {
    const record = keyedRecord<string>();
    for (const key of OBJECT_MEMBERS) expect(record[key]).toBeUndefined();
  });

  it('keeps every key written as its own, in order, and nothing else', () => {
    const record = keyedRecord<string>();
    for (const key of OBJECT_MEMBERS) record[key] = `${key}!`;
    expect(Object.keys(record)).toEqual(OBJECT_MEMBERS);
    for (const key of OBJECT_MEMBERS)
      expect(Object.getOwnPropertyDescriptor(record, key)?.value).toBe(`${key}!`);
    const iterated: string[] = [];
    for (const key in record) iterated.push(key);
    expect(iterated).toEqual(OBJECT_MEMBERS);
    // Serialized with every key, as a JSON object written out by hand would be.
    expect(JSON.stringify(record)).toBe(`{${OBJECT_MEMBERS.map((key) => `"${key}":"${key}!"`).join(',')}}`);
  });
});

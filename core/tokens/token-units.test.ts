import { describe, expect, it } from 'vitest';
import { base58 } from './base58.ts';
import { checkExpiresAt, formatExpiry, parseExpiry } from './expiry.ts';
import { mergePatch } from './merge-patch.ts';
import { isVaultError } from '../errors/catalogue.ts';

describe('base58', () => {
  it.each([
    [[], ''],
    [[0], '1'],
    [[0, 0, 1], '112'],
    [[0x61], '2g'],
    [Array.from(Buffer.from('hello world')), 'StV1DL6CwTryKyV'],
    [[0xff, 0xff], 'LUv'],
  ])('%j → %s', (bytes, text) => {
    expect(base58(new Uint8Array(bytes))).toBe(text);
  });

  it('encodes 32 bytes in at most 44 characters of the alphabet', () => {
    const text = base58(new Uint8Array(32).fill(0xff));
    expect(text.length).toBeLessThanOrEqual(44);
    expect(text).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });
});

describe('JSON merge patch (RFC 7386 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('removes the whole value on a null patch and never mutates its inputs', () => {
    expect(mergePatch({ a: 1 }, null)).toBeUndefined();
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });

  it('keeps __proto__ as an own member instead of changing the prototype', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const result = mergePatch({}, patch) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: true });
    expect(result.polluted).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('expires_at formats', () => {
  it.each([
    ['8/26/2030 7:23:57 PM -07:00', '2030-08-27T02:23:57.000Z', '2030-08-26T19:23:57-07:00'],
    ['8/26/2030 7:23:57 AM +05:30', '2030-08-26T01:53:57.000Z', '2030-08-26T07:23:57+05:30'],
    ['12/1/2030 12:00:00 AM', '2030-12-01T00:00:00.000Z', '2030-12-01T00:00:00Z'],
    ['12/1/2030 12:30 PM', '2030-12-01T12:30:00.000Z', '2030-12-01T12:30:00Z'],
    ['9/27/2030', '2030-09-27T00:00:00.000Z', '2030-09-27T00:00:00Z'],
    ['2030-04-23T13:24:28Z', '2030-04-23T13:24:28.000Z', '2030-04-23T13:24:28Z'],
    ['2030-04-23T13:24:28', '2030-04-23T13:24:28.000Z', '2030-04-23T13:24:28Z'],
    ['2030-04-23T13:24:28.5+01:00', '2030-04-23T12:24:28.500Z', '2030-04-23T13:24:28.500+01:00'],
    ['2030-04-23T13:24+0100', '2030-04-23T12:24:00.000Z', '2030-04-23T13:24:00+01:00'],
    ['2030-04-23T13:24:28+00:00', '2030-04-23T13:24:28.000Z', '2030-04-23T13:24:28+00:00'],
    ['2030-04-23', '2030-04-23T00:00:00.000Z', '2030-04-23T00:00:00Z'],
    ['2030-01-01T00:30:00-01:00', '2030-01-01T01:30:00.000Z', '2030-01-01T00:30:00-01:00'],
  ])('%s → %s, shown as %s', (input, utc, shown) => {
    const parsed = parseExpiry(input);
    if (typeof parsed === 'string') throw new Error(parsed);
    expect(parsed.at.toISOString()).toBe(utc);
    expect(formatExpiry(parsed.at.toISOString(), parsed.offsetMinutes)).toBe(shown);
  });

  it.each([
    ['tomorrow'],
    ['2030-02-30'],
    ['2/30/2030'],
    ['13/1/2030'],
    ['2030-04-23T24:00:00Z'],
    ['13:00 PM'],
    ['8/26/2030 13:23:57 PM'],
    ['2030-04-23T13:24:28+15:00'],
    ['0999-01-01'],
    [''],
  ])('refuses %s', (input) => {
    expect(typeof parseExpiry(input)).toBe('string');
  });

  it('refuses non-strings and instants not after now', () => {
    expect(parseExpiry(1234)).toBe('must be a string');
    const now = new Date('2030-01-01T00:00:00Z');
    for (const input of ['2030-01-01T00:00:00Z', '1/1/2029']) {
      let error: unknown;
      try {
        checkExpiresAt(input, now);
      } catch (e) {
        error = e;
      }
      expect(isVaultError(error, 'VALIDATION_FAILED') && error.errors).toEqual({
        expires_at: ['must be in the future'],
      });
    }
    expect(checkExpiresAt('2030-01-01T00:00:01Z', now).at.toISOString()).toBe('2030-01-01T00:00:01.000Z');
  });
});

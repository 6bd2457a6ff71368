/** Luhn and ABA checksums: known values and fast-check properties. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { abaCheckDigit, abaRoutingValid } from './aba.ts';
import { luhnCheckDigit, luhnValid } from './luhn.ts';

const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** Replace the digit at `index` with a different digit. */
function mutate(value: string, index: number, delta: number): string {
  const i = index % value.length;
  const d = (Number(value[i]) + 1 + (delta % 9)) % 10;
  return value.slice(0, i) + String(d) + value.slice(i + 1);
}

describe('luhn', () => {
  it.each([
    ['4242424242424242', true],
    ['79927398713', true],
    ['4242424242424241', false],
    ['79927398710', false],
    ['', false],
    ['4242-4242', false],
  ])('%s → %s', (value, expected) => {
    expect(luhnValid(value)).toBe(expected);
  });

  it('a check digit makes any prefix valid, and any single-digit change breaks it', () => {
    fc.assert(
      fc.property(digits(1, 18), fc.nat(), fc.nat(), (prefix, index, delta) => {
        const number = prefix + luhnCheckDigit(prefix);
        expect(luhnValid(number)).toBe(true);
        expect(luhnValid(mutate(number, index, delta))).toBe(false);
      }),
    );
  });
});

describe('ABA routing number', () => {
  it.each([
    ['021000021', true],
    ['011000015', true],
    ['110000000', true],
    ['021000022', false],
    ['123456789', false],
    ['02100002', false],
    ['0210000210', false],
    ['02100002a', false],
  ])('%s → %s', (value, expected) => {
    expect(abaRoutingValid(value)).toBe(expected);
  });

  it('a check digit makes any eight digits valid, and any single-digit change breaks it', () => {
    fc.assert(
      fc.property(digits(8, 8), fc.nat(), fc.nat(), (first, index, delta) => {
        const routing = first + abaCheckDigit(first);
        expect(abaRoutingValid(routing)).toBe(true);
        expect(abaRoutingValid(mutate(routing, index, delta))).toBe(false);
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import type { ParameterType } from './contract.ts';
import { castTo, checkArgs, checkConfiguration } from './parameters.ts';

function errorsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (error) {
    if (isVaultError(error, 'VALIDATION_FAILED') && error.errors) return error.errors;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('castTo', () => {
  it.each<[ParameterType, unknown, unknown]>([
    ['string', 'x', 'x'],
    ['string', 12.5, '12.5'],
    ['string', false, 'false'],
    ['number', 3, 3],
    ['number', '42', 42],
    ['number', ' -1.5e2 ', -150],
    ['number', '.5', 0.5],
    ['boolean', true, true],
    ['boolean', 'TRUE', true],
    ['boolean', 'false', false],
  ])('%s ← %j = %j', (type, value, expected) => {
    expect(castTo(type, value)).toEqual({ ok: true, value: expected });
  });

  it.each<[ParameterType, unknown]>([
    ['string', { a: 1 }],
    ['string', ['a']],
    ['string', Number.NaN],
    ['number', 'twelve'],
    ['number', ''],
    ['number', '1e400'],
    ['number', true],
    ['number', '0x10'],
    ['boolean', 'yes'],
    ['boolean', 1],
    ['boolean', null],
  ])('%s ← %j is not castable', (type, value) => {
    expect(castTo(type, value)).toEqual({ ok: false });
  });
});

describe('checkArgs', () => {
  const parameters = [
    { name: 'card.number', type: 'string' as const, optional: false },
    { name: 'card.cvc', type: 'number' as const, optional: true },
    { name: 'amount', type: 'number' as const, optional: false },
  ];

  it('casts nested and top-level values, keeps undeclared args, leaves the input unchanged', () => {
    const input = { card: { number: 4242, brand: 'visa' }, amount: '10', extra: [1] };
    expect(checkArgs(input, parameters)).toEqual({
      card: { number: '4242', brand: 'visa' },
      amount: 10,
      extra: [1],
    });
    expect(input.card.number).toBe(4242);
  });

  it('names every failing parameter; names are case-sensitive; null is missing', () => {
    expect(
      errorsOf(() => checkArgs({ Card: { number: 'x' }, amount: null, card: { cvc: 'abc' } }, parameters)),
    ).toEqual({
      'args.card.number': ['is required'],
      'args.card.cvc': ['must be a number'],
      'args.amount': ['is required'],
    });
    expect(errorsOf(() => checkArgs({ card: 'not an object', amount: 1 }, parameters))).toEqual({
      'args.card.number': ['is required'],
    });
    expect(errorsOf(() => checkArgs([1], parameters))).toEqual({ args: ['must be an object'] });
  });
});

describe('checkConfiguration', () => {
  const settings = [
    { name: 'region', type: 'string' as const },
    { name: 'retries', type: 'number' as const },
  ];
  it('requires every declared setting, refuses undeclared ones, casts', () => {
    expect(checkConfiguration({ region: 'eu', retries: '2' }, settings)).toEqual({
      region: 'eu',
      retries: 2,
    });
    expect(errorsOf(() => checkConfiguration({ retries: 'x', other: 1 }, settings))).toEqual({
      'configuration.other': ['is not declared by the formula'],
      'configuration.region': ['is required by the formula'],
      'configuration.retries': ['must be a number'],
    });
  });
});

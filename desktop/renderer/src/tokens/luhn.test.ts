import { expect, it } from 'vitest';
import { luhnHint } from './luhn';

it('hints whether a card number passes the Luhn check', () => {
  expect(luhnHint('4242 4242 4242 4242')).toBe('Passes the Luhn check.');
  expect(luhnHint('4242424242424241')).toBe('Fails the Luhn check (a typo?).');
  expect(luhnHint('4242')).toContain('12 to 19');
  expect(luhnHint('42a2')).toBe('Only digits, spaces and dashes.');
  expect(luhnHint('')).toBeNull();
});

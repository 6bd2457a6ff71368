/** The token type table (core/tokens/token-types.ts): validation, defaults, and the defaults evaluated. */
import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { evaluateMask, evaluateSearchIndexes, fingerprintInput } from '../expressions/index.ts';
import {
  TOKEN_TYPES,
  TOKEN_TYPE_NAMES,
  assertTokenData,
  isTokenType,
  tokenTypeOf,
  validateTokenData,
} from './token-types.ts';
import type { TokenType } from './token-types.ts';

/** D `api-reference/_tokens.md`: test-mode card numbers. */
const TEST_CARDS = [
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '2223003122003222',
  '5200828282828210',
  '5105105105105100',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '6011000990139424',
  '3056930009020004',
  '36227206271667',
  '3566002020360505',
  '620000000000000',
];

const ROUTING = '021000021';
const VALID_CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };
const VALID_BANK = { routing_number: ROUTING, account_number: '1234567890' };

type Case = [type: TokenType, data: unknown, errors: Record<string, string[]>];

const valid: Array<[TokenType, unknown]> = [
  ['token', 'anything at all'],
  ['token', { nested: { any: [1, 2, 3] } }],
  ['token', ''],
  ['token', 0],
  ['token', false],
  ...TEST_CARDS.map((n): [TokenType, unknown] => ['card_number', n]),
  ...TEST_CARDS.map((n): [TokenType, unknown] => ['card', { number: n }]),
  ['card', VALID_CARD],
  ['card', { number: '4242424242424242', expiration_month: 1, expiration_year: 1000, cvc: '1234' }],
  ['card', { number: '4242424242424242', expiration_month: null, cvc: null }],
  ['card', { number: '4242424242424242', expiration_year: 9999 }],
  ['bank', VALID_BANK],
  ['bank', { routing_number: '011000015', account_number: '1' }],
  ['bank', { routing_number: '110000000', account_number: '12345678901234567' }],
  ['us_bank_account_number', '123'],
  ['us_bank_account_number', '1234567890'],
  ['us_bank_account_number', '12345678901234567'],
  ['us_bank_routing_number', ROUTING],
  ['us_bank_routing_number', '011000015'],
  ['us_bank_routing_number', '110000000'],
  ['social_security_number', '123456789'],
  ['social_security_number', '123-45-6789'],
  ['employer_id_number', '12-3456789'],
  ['employer_id_number', '123456789'],
];

const invalid: Case[] = [
  ['token', null, { data: ['is required'] }],
  ['token', undefined, { data: ['is required'] }],
  // card_number
  ['card_number', '4242424242424241', { data: ['is not a valid card number (Luhn check failed)'] }],
  ['card_number', '4242 4242 4242 4242', { data: ['must be 13 to 19 digits without separators'] }],
  ['card_number', '4242-4242-4242-4242', { data: ['must be 13 to 19 digits without separators'] }],
  ['card_number', '424242424242', { data: ['must be 13 to 19 digits without separators'] }],
  ['card_number', '42424242424242424242', { data: ['must be 13 to 19 digits without separators'] }],
  ['card_number', 4242424242424242, { data: ['must be a string of digits'] }],
  [
    'card_number',
    '４２４２４２４２４２４２４２４２',
    { data: ['must be 13 to 19 digits without separators'] },
  ],
  ['card_number', null, { data: ['is required'] }],
  // card
  ['card', 'not an object', { data: ['must be a card object'] }],
  ['card', ['4242424242424242'], { data: ['must be a card object'] }],
  ['card', null, { data: ['is required'] }],
  ['card', {}, { 'data.number': ['is required'] }],
  [
    'card',
    { number: '4242424242424241' },
    { 'data.number': ['is not a valid card number (Luhn check failed)'] },
  ],
  ['card', { number: 4242424242424242 }, { 'data.number': ['must be a string of digits'] }],
  [
    'card',
    { number: '4242424242424242', expiration_month: 0 },
    { 'data.expiration_month': ['must be an integer from 1 to 12'] },
  ],
  [
    'card',
    { number: '4242424242424242', expiration_month: 13 },
    { 'data.expiration_month': ['must be an integer from 1 to 12'] },
  ],
  [
    'card',
    { number: '4242424242424242', expiration_month: '12' },
    { 'data.expiration_month': ['must be an integer from 1 to 12'] },
  ],
  [
    'card',
    { number: '4242424242424242', expiration_month: 1.5 },
    { 'data.expiration_month': ['must be an integer from 1 to 12'] },
  ],
  [
    'card',
    { number: '4242424242424242', expiration_year: 28 },
    { 'data.expiration_year': ['must be a four-digit integer year'] },
  ],
  [
    'card',
    { number: '4242424242424242', expiration_year: '2030' },
    { 'data.expiration_year': ['must be a four-digit integer year'] },
  ],
  [
    'card',
    { number: '4242424242424242', expiration_year: 20300 },
    { 'data.expiration_year': ['must be a four-digit integer year'] },
  ],
  ['card', { number: '4242424242424242', cvc: '12' }, { 'data.cvc': ['must be a string of 3 or 4 digits'] }],
  [
    'card',
    { number: '4242424242424242', cvc: '12345' },
    { 'data.cvc': ['must be a string of 3 or 4 digits'] },
  ],
  ['card', { number: '4242424242424242', cvc: 123 }, { 'data.cvc': ['must be a string of 3 or 4 digits'] }],
  ['card', { number: '4242424242424242', exp_month: 1 }, { 'data.exp_month': ['is not a card field'] }],
  [
    'card',
    { expiration_month: 13, cvc: 'abc' },
    {
      'data.number': ['is required'],
      'data.expiration_month': ['must be an integer from 1 to 12'],
      'data.cvc': ['must be a string of 3 or 4 digits'],
    },
  ],
  // bank
  ['bank', 'x', { data: ['must be a bank object'] }],
  ['bank', {}, { 'data.routing_number': ['is required'], 'data.account_number': ['is required'] }],
  [
    'bank',
    { routing_number: '021000022', account_number: '1' },
    { 'data.routing_number': ['is not a valid ABA routing number (checksum failed)'] },
  ],
  [
    'bank',
    { routing_number: '02100002', account_number: '1' },
    { 'data.routing_number': ['must be 9 digits'] },
  ],
  [
    'bank',
    { routing_number: ROUTING, account_number: '123456789012345678' },
    { 'data.account_number': ['must be 1 to 17 digits'] },
  ],
  [
    'bank',
    { routing_number: ROUTING, account_number: '12-34' },
    { 'data.account_number': ['must be 1 to 17 digits'] },
  ],
  ['bank', { ...VALID_BANK, bank_name: 'x' }, { 'data.bank_name': ['is not a bank field'] }],
  // us_bank_account_number
  ['us_bank_account_number', '12', { data: ['must be 3 to 17 digits'] }],
  ['us_bank_account_number', '123456789012345678', { data: ['must be 3 to 17 digits'] }],
  ['us_bank_account_number', '12a45', { data: ['must be 3 to 17 digits'] }],
  ['us_bank_account_number', 12345, { data: ['must be a string of digits'] }],
  // us_bank_routing_number
  ['us_bank_routing_number', '123456789', { data: ['is not a valid ABA routing number (checksum failed)'] }],
  ['us_bank_routing_number', '0210000210', { data: ['must be 9 digits'] }],
  ['us_bank_routing_number', '02100002a', { data: ['must be 9 digits'] }],
  // social_security_number / employer_id_number
  ['social_security_number', '123-45-678', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['social_security_number', '12345678a', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['social_security_number', '-123456789', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['social_security_number', '123456789-', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['social_security_number', '123--456789', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['social_security_number', '123 45 6789', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['social_security_number', 123456789, { data: ['must be a string of digits'] }],
  ['employer_id_number', '12-34567890', { data: ["must be 9 digits, optionally grouped with '-'"] }],
  ['employer_id_number', '', { data: ["must be 9 digits, optionally grouped with '-'"] }],
];

describe('validateTokenData', () => {
  it.each(valid)('%s accepts %j', (type, data) => {
    expect(validateTokenData(type, data)).toEqual({});
    expect(() => assertTokenData(type, data)).not.toThrow();
  });

  it.each(invalid)('%s refuses %j', (type, data, errors) => {
    expect(validateTokenData(type, data)).toEqual(errors);
    try {
      assertTokenData(type, data);
      throw new Error('expected a validation error');
    } catch (error) {
      expect(isVaultError(error, 'VALIDATION_FAILED')).toBe(true);
      expect((error as { errors: unknown }).errors).toEqual(errors);
    }
  });

  it('never quotes the data in a message', () => {
    for (const [type, data] of invalid) {
      const messages = Object.values(validateTokenData(type, data)).flat().join(' ');
      if (typeof data === 'string' && data.length > 3) expect(messages).not.toContain(data);
    }
  });

  it('reports an unknown type under `type`', () => {
    expect(validateTokenData('iban', 'x')).toEqual({
      type: [`must be one of: ${TOKEN_TYPE_NAMES.join(', ')}`],
    });
  });
});

describe('tokenTypeOf', () => {
  it('returns the definition of every type', () => {
    for (const name of TOKEN_TYPE_NAMES) {
      expect(isTokenType(name)).toBe(true);
      expect(tokenTypeOf(name).type).toBe(name);
    }
  });

  it.each([['iban'], ['Token'], ['toString'], ['__proto__'], [''], [undefined], [null], [42]])(
    'refuses %j with a 400 naming `type`',
    (name) => {
      expect(isTokenType(name)).toBe(false);
      try {
        tokenTypeOf(name);
        throw new Error('expected a validation error');
      } catch (error) {
        expect(isVaultError(error, 'VALIDATION_FAILED')).toBe(true);
        expect(Object.keys((error as { errors: object }).errors)).toEqual(['type']);
      }
    },
  );

  it('the table is frozen', () => {
    expect(Object.isFrozen(TOKEN_TYPES)).toBe(true);
    expect(Object.isFrozen(TOKEN_TYPES.card.mask)).toBe(true);
    expect(Object.isFrozen(TOKEN_TYPES.social_security_number.defaultSearchIndexes)).toBe(true);
  });
});

describe('defaults (the type table)', () => {
  const table: Array<[TokenType, string, string, boolean]> = [
    // type, container, fingerprint expression, search_indexes may be supplied
    ['token', '/general/high/', '{{ data | stringify }}', true],
    ['card', '/pci/high/', '{{ data.number }}', false],
    ['bank', '/bank/high/', '{{ data.account_number }}|{{ data.routing_number }}', false],
    ['card_number', '/pci/high/', '{{ data }}', false],
    ['us_bank_account_number', '/bank/high/', '{{ data }}', false],
    ['us_bank_routing_number', '/bank/low/', '{{ data }}', false],
    ['social_security_number', '/pii/high/', "{{ data | remove: '-' }}", true],
    ['employer_id_number', '/pii/high/', "{{ data | remove: '-' }}", true],
  ];
  it.each(table)('%s', (type, container, fingerprint, searchable) => {
    const def = TOKEN_TYPES[type];
    expect(def.defaultContainer).toBe(container);
    expect(def.fingerprintExpression).toBe(fingerprint);
    expect(def.searchIndexesAllowed).toBe(searchable);
  });

  it('covers exactly the eight types', () => {
    expect(Object.keys(TOKEN_TYPES).sort()).toEqual([...TOKEN_TYPE_NAMES].sort());
  });
});

describe('default masks evaluated (one example per type)', () => {
  const examples: Array<[TokenType, unknown, unknown]> = [
    ['card_number', '4242424242424242', 'XXXXXXXXXXXX4242'],
    ['card_number', '36227206271667', 'XXXXXXXXXX1667'],
    ['us_bank_account_number', '1234567890', 'XXXXXX7890'],
    ['us_bank_routing_number', ROUTING, 'XXXXX0021'],
    ['social_security_number', '123456789', 'XXXXX6789'],
    ['social_security_number', '123-45-6789', 'XXX-XX-6789'],
    ['employer_id_number', '123456789', 'XXXXX6789'],
    ['employer_id_number', '12-3456789', 'XX-XXX6789'],
    ['token', { anything: 1 }, null],
    ['card', VALID_CARD, { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 }],
    [
      'card',
      { number: '378282246310005' },
      { number: 'XXXXXXXXXXX0005', expiration_month: null, expiration_year: null },
    ],
    ['bank', VALID_BANK, { routing_number: ROUTING, account_number: 'XXXXXX7890' }],
  ];
  it.each(examples)('%s %j → %j', (type, data, expected) => {
    expect(evaluateMask(TOKEN_TYPES[type].mask, data)).toEqual(expected);
  });

  it('the card mask drops the cvc', () => {
    expect(evaluateMask(TOKEN_TYPES.card.mask, VALID_CARD)).not.toHaveProperty('cvc');
  });
});

describe('default fingerprint input', () => {
  const examples: Array<[TokenType, unknown, string]> = [
    ['token', 'Sensitive Value', 'Sensitive Value'],
    ['token', { b: 1, a: [true, null] }, '{"b":1,"a":[true,null]}'],
    ['token', 42, '42'],
    ['card', VALID_CARD, '4242424242424242'],
    ['bank', VALID_BANK, `1234567890|${ROUTING}`],
    ['card_number', '4242424242424242', '4242424242424242'],
    ['us_bank_account_number', '1234567890', '1234567890'],
    ['us_bank_routing_number', ROUTING, ROUTING],
    ['social_security_number', '123-45-6789', '123456789'],
    ['social_security_number', '123456789', '123456789'],
    ['employer_id_number', '12-3456789', '123456789'],
  ];
  it.each(examples)('%s %j → %s', (type, data, expected) => {
    expect(fingerprintInput(TOKEN_TYPES[type].fingerprintExpression, data)).toBe(expected);
  });

  it('SSNs with and without dashes share a fingerprint input', () => {
    const fp = TOKEN_TYPES.social_security_number.fingerprintExpression;
    expect(fingerprintInput(fp, '123-45-6789')).toBe(fingerprintInput(fp, '123456789'));
  });
});

describe('default search indexes', () => {
  it('SSN and EIN: raw, without dashes, last four', () => {
    expect(
      evaluateSearchIndexes(TOKEN_TYPES.social_security_number.defaultSearchIndexes, '123-45-6789'),
    ).toEqual(['123-45-6789', '123456789', '6789']);
    expect(evaluateSearchIndexes(TOKEN_TYPES.employer_id_number.defaultSearchIndexes, '12-3456789')).toEqual([
      '12-3456789',
      '123456789',
      '6789',
    ]);
  });

  it('every other type has none', () => {
    for (const name of TOKEN_TYPE_NAMES) {
      if (name === 'social_security_number' || name === 'employer_id_number') continue;
      expect(TOKEN_TYPES[name].defaultSearchIndexes).toEqual([]);
    }
  });
});

/**
 * Every custom filter (docs/expressions.md, "Custom filters"), with worked examples of each as
 * cases, plus null handling and argument errors.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { CUSTOM_FILTER_NAMES, defaultEngine, evaluate } from './index.ts';

/** Expected value, a pattern the (random) value must match, or an error whose message contains text. */
type Expected = unknown | RegExp | { error: string };
type Case = [expression: string, data: unknown, expected: Expected];

function errorOf(fn: () => unknown): { field: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (!isVaultError(error, 'VALIDATION_FAILED') || error.errors === undefined) throw error;
    const [field, messages] = Object.entries(error.errors)[0] ?? ['', []];
    return { field, message: messages.join(' ') };
  }
  throw new Error('expected a validation error');
}

function check([expression, data, expected]: Case): void {
  if (expected instanceof RegExp) {
    const value = evaluate(expression, { data });
    expect(typeof value).toBe('string');
    expect(value).toMatch(expected);
  } else if (expected !== null && typeof expected === 'object' && 'error' in expected) {
    const { field, message } = errorOf(() => evaluate(expression, { data }));
    expect(field).toBe('expression');
    expect(message).toContain((expected as { error: string }).error);
  } else {
    expect(evaluate(expression, { data })).toEqual(expected);
  }
}

const ALIAS_DATA = 'ABC12345DEF67890';
const CARD_DASHED = '3622-7206-2716-5567';
const DINERS = '36227206271667';

const BOOKS = {
  books: [
    {
      category: 'fiction',
      author: 'Herman Melville',
      title: 'Moby Dick',
      isbn: '0-553-21311-3',
      price: 8.99,
    },
    {
      category: 'fantasy',
      author: 'J. R. R. Tolkien',
      title: 'The Lord of the Rings',
      isbn: '0-395-19395-8',
      price: 22.99,
    },
  ],
  bicycle: { color: 'red', price: 19.95 },
};

const BICYCLES = {
  books: BOOKS.books,
  bicycles: [
    { color: 'red', price: 19.95 },
    { color: 'blue', price: 24.95 },
  ],
};

const CARD = { number: '3622720627165567', expiration_month: 10, expiration_year: 2028 };

const table: Record<string, Case[]> = {
  alias_preserve_format: [
    ['{{ data | alias_preserve_format }}', ALIAS_DATA, /^[a-z]{3}\d{5}[a-z]{3}\d{5}$/],
    ['{{ data | alias_preserve_format: 3 }}', ALIAS_DATA, /^ABC\d{5}[a-z]{3}\d{5}$/],
    ['{{ data | alias_preserve_format: 0, 5 }}', ALIAS_DATA, /^[a-z]{3}\d{5}[a-z]{3}67890$/],
    ['{{ data | alias_preserve_format: 3, 5 }}', ALIAS_DATA, /^ABC\d{5}[a-z]{3}67890$/],
    // D `expressions/_aliasing.md`: SSN and card with the last four kept, separators kept.
    ['{{ data | alias_preserve_format: 0, 4 }}', '111-22-3333', /^\d{3}-\d{2}-3333$/],
    ['{{ data | alias_preserve_format: 0, 4 }}', '4242-4242-4242-4242', /^\d{4}-\d{4}-\d{4}-4242$/],
    ['{{ data | alias_preserve_format }}', 'john doe@x.io', /^[a-z]{4} [a-z]{3}@[a-z]\.[a-z]{2}$/],
    ['{{ data | alias_preserve_format }}', null, null],
    ['{{ data | alias_preserve_format: 2, 2 }}', '1234', { error: 'would reveal the whole value' }],
    ['{{ data | alias_preserve_format }}', '---', { error: 'would reveal the whole value' }],
    [
      '{{ data | alias_preserve_format: -1 }}',
      ALIAS_DATA,
      { error: 'reveal_first_length must be an integer' },
    ],
  ],
  alias_preserve_length: [
    ['{{ data | alias_preserve_length }}', ALIAS_DATA, /^[a-z0-9]{16}$/],
    ['{{ data | alias_preserve_length: 3 }}', ALIAS_DATA, /^ABC[a-z0-9]{13}$/],
    ['{{ data | alias_preserve_length: 0, 5 }}', ALIAS_DATA, /^[a-z0-9]{11}67890$/],
    ['{{ data | alias_preserve_length: 3, 5 }}', ALIAS_DATA, /^ABC[a-z0-9]{8}67890$/],
    ['{{ data | alias_preserve_length }}', '-- --', /^[a-z0-9]{5}$/],
    [
      "{{ data.email | split: '@' | first | alias_preserve_length }}@{{ data.email | split: '@' | last }}",
      { email: 'john.doe@gmail.com' },
      /^[a-z0-9]{8}@gmail\.com$/,
    ],
    ['{{ data | alias_preserve_length }}', null, null],
    ['{{ data | alias_preserve_length: 3, 1 }}', 'abcd', { error: 'would reveal the whole value' }],
  ],
  json: [
    ['{{ data.bicycle.color }}', BOOKS, 'red'],
    ["{{ data | json: '$.bicycle.color' }}", BOOKS, 'red'],
    ["{{ data | json: '$.bicycle.price' }}", BOOKS, 19.95],
    ['{{ data.bicycle }}', BOOKS, { color: 'red', price: 19.95 }],
    ["{{ data | json: '$.books[0].author' }}", BOOKS, 'Herman Melville'],
    ["{{ data | json: '$.books[?(@.price < 10)].title' }}", BOOKS, 'Moby Dick'],
    ['{{ data.nonexistent }}', BOOKS, null],
    ["{{ data | json: '$.book..author' }}", BOOKS, { error: 'selected no value' }],
    ["{{ data | json: '$..author' }}", BOOKS, { error: 'selected several values' }],
    ["{{ data | json: '$.books[?(@.price > 100)]' }}", BOOKS, { error: 'selected no value' }],
    ["{{ data | json: '$.bicycle' }}", BOOKS, { color: 'red', price: 19.95 }],
    ["{{ data | json: '$.books[-1:]' }}", BOOKS, BOOKS.books.slice(-1)[0]],
    ["{{ data | json: '$.bicycle' | json: '$.color' | upcase }}", BOOKS, 'RED'],
    ["{{ data | json: '$' }}", 'plain', 'plain'],
    ["{{ data | json: '$.x' }}", 'plain', { error: 'selected no value' }],
    ["{{ data | json: '$.x' }}", null, null],
    ['{{ data | json }}', BOOKS, { error: 'json_path_expression is required' }],
    // Scripts may compare and read, never call or assign.
    ["{{ data | json: '$.books[?(@.title.repeat(3))].title' }}", BOOKS, { error: 'may not call functions' }],
    ["{{ data | json: '$.books[?(x = 1)].title' }}", BOOKS, { error: 'may not call functions' }],
    ["{{ data | json: '$.books[?(@.constructor)].title' }}", BOOKS, { error: 'selected no value' }],
    [
      "{{ data | json: '$.books[?(@[\\'price\\'] < 10 && !(@.author == \\'x\\'))].title' }}",
      BOOKS,
      'Moby Dick',
    ],
    [
      "{{ data | json: '$.books[?(typeof @.isbn === \\'string\\' ? @.price < 10 : false)].title' }}",
      BOOKS,
      'Moby Dick',
    ],
    ["{{ data | json: '$.books[(@.length-1)].price' }}", BOOKS, BOOKS.books.slice(-1)[0]?.price],
  ],
  last4: [
    ['{{ data | last4 }}', DINERS, '1667'],
    ['{{ data | slice: 12, 2 | last4 }}', DINERS, '67'],
    ['{{ data | last4 }}', 'abc', 'abc'],
    ['{{ data | last4 }}', 1234567, '4567'],
    ['{{ data | last4 }}', null, null],
    ['{{ data | last4 }}', { a: 1 }, { error: 'expects a string, not an object' }],
  ],
  pad_left: [
    ["{{ data | pad_left: 6, '0' }}", '1234', '001234'],
    ["{{ data | pad_left: 6, 'X' }}", '1234', 'XX1234'],
    ["{{ data | pad_left: 4, '0' }}", '1234', '1234'],
    ["{{ data | pad_left: 2, '0' }}", '1234', '1234'],
    ["{{ data | pad_left: 6, '0' }}", null, null],
    ["{{ data.missing | pad_left: 6, '0' }}", {}, null],
    ["{{ data | pad_left: 3, '0' }}", 7, '007'],
    ['{{ data | pad_left: 6 }}', '1234', { error: 'pad_char is required' }],
    ["{{ data | pad_left: 6, 'ab' }}", '1234', { error: 'pad_char must be exactly one character' }],
    ["{{ data | pad_left: 'x', '0' }}", '1234', { error: 'length must be an integer' }],
  ],
  pad_right: [
    ["{{ data | pad_right: 6, '0' }}", '1234', '123400'],
    ["{{ data | pad_right: 6, 'X' }}", '1234', '1234XX'],
    ["{{ data | pad_right: 4, '0' }}", '1234', '1234'],
    ["{{ data | pad_right: 2, '0' }}", '1234', '1234'],
    ["{{ data | pad_right: 6, '0' }}", null, null],
    ['{{ data | pad_right }}', '1234', { error: 'length is required' }],
  ],
  reveal: [
    ['{{ data | reveal: 6 }}', CARD_DASHED, '3622-7XXXXXXXXXXXXX'],
    ['{{ data | reveal: 7, 5 }}', CARD_DASHED, '3622-72XXXXXXX-5567'],
    ["{{ data | reveal: 7, 5, '#' }}", CARD_DASHED, '3622-72#######-5567'],
    ['{{ data | reveal: 7, 4, \'#\', "-" }}', CARD_DASHED, '3622-72##-####-5567'],
    ['{{ data | reveal: 10, 9 }}', CARD_DASHED, 'XXXXXXXXXXXXXXXXXXX'],
    ['{{ data | reveal }}', 'secret', 'XXXXXX'],
    // Nothing left to mask → the whole value is masked (preserve_chars still kept).
    ["{{ data | reveal: 2, 2, 'X', '-' }}", 'AB-CD', 'XX-XX'],
    ['{{ data | reveal: 2, 2 }}', '12XX34', 'XXXXXX'],
    ['{{ data | reveal: 2 }}', null, null],
    ["{{ data | reveal: 2, 2, 'XY' }}", 'abcdef', { error: 'mask_char must be exactly one character' }],
  ],
  reveal_last: [
    ['{{ data | reveal_last: 6 }}', DINERS, 'XXXXXXXX271667'],
    ["{{ data | reveal_last: 3, '#' }}", DINERS, '###########667'],
    ['{{ data | reveal_last: 4 }}', '4242424242424242', 'XXXXXXXXXXXX4242'],
    ['{{ data | reveal_last: 4 }}', DINERS, 'XXXXXXXXXX1667'],
    ['{{ data | reveal_last: 4 }}', '1234567890', 'XXXXXX7890'],
    ['{{ data | reveal_last: 4 }}', '123456789', 'XXXXX6789'],
    ['{{ data | reveal_last: 4 }}', '123-45-6789', 'XXX-XX-6789'],
    ['{{ data | reveal_last: 4 }}', '12-3456789', 'XX-XXX6789'],
    ['{{ data | reveal_last: 4 }}', '4242-4242-4242-4242', 'XXXX-XXXX-XXXX-4242'],
    ["{{ data | reveal_last: 4, '#' }}", '123-45-6789', '###-##-6789'],
    ['{{ data | reveal_last: 4 }}', 'Sensitive Value', 'XXXXXXXXXXXalue'],
    ['{{ data | reveal_last: 4 }}', '123', '123'],
    ['{{ data | reveal_last: 4 }}', null, null],
    ['{{ data | reveal_last }}', DINERS, { error: 'length is required' }],
  ],
  stringify: [
    ['{{ data.books[0].price | stringify }}', BICYCLES, '8.99'],
    ['{{ data.books[1].title | stringify }}', BICYCLES, 'The Lord of the Rings'],
    ['{{ data.bicycles[0] | stringify }}', BICYCLES, '{"color":"red","price":19.95}'],
    [
      '{{ data.bicycles | stringify }}',
      BICYCLES,
      '[{"color":"red","price":19.95},{"color":"blue","price":24.95}]',
    ],
    ['{{ data | stringify }}', true, 'true'],
    ['{{ data | stringify }}', null, null],
    ['{{ data.missing | stringify }}', {}, null],
  ],
  to_boolean: [
    ['{{ data.true_string | to_boolean }}', { true_string: 'true' }, true],
    ['{{ data.false_string | to_boolean }}', { false_string: 'false' }, false],
    ['{{ data | to_boolean }}', ' TRUE ', true],
    ['{{ data | to_boolean }}', false, false],
    ['{{ data | to_boolean }}', null, null],
    ['{{ data | to_boolean }}', 'yes', { error: 'cannot be cast to a boolean' }],
    ['{{ data | to_boolean }}', 1, { error: 'cannot be cast to a boolean' }],
  ],
  to_number: [
    ['{{ data.int_string | to_number }}', { int_string: '42' }, 42],
    ['{{ data.decimal_string | to_number }}', { decimal_string: '3.14159' }, 3.14159],
    ['{{ data | to_number }}', '-1e3', -1000],
    ['{{ data | to_number }}', 7, 7],
    ['{{ data | to_number }}', null, null],
    ['{{ data | to_number }}', 'abc', { error: 'cannot be cast to a number' }],
    ['{{ data | to_number }}', '', { error: 'cannot be cast to a number' }],
    ['{{ data | to_number }}', '0x10', { error: 'cannot be cast to a number' }],
    ['{{ data | to_number }}', true, { error: 'cannot be cast to a number' }],
  ],
  to_string: [
    ['{{ data.numeric_value | to_string }}', { numeric_value: 3.14159 }, '3.14159'],
    ['{{ data.boolean_value | to_string }}', { boolean_value: true }, 'true'],
    ['{{ data.string_value | to_string }}', { string_value: 'foo' }, 'foo'],
    ['{{ data | to_string }}', null, null],
    ['{{ data | to_string }}', { a: 1 }, { error: 'cannot be cast to a string' }],
    ['{{ data | to_string }}', [1], { error: 'cannot be cast to a string' }],
  ],
  card_bin: [
    ['{{ data.number | card_bin }}', CARD, '36227206'],
    ['{{ data | card_bin }}', CARD, '36227206'],
    ["{{ data | card_bin: '-' }}", '4242-4242-4242-4242', '42424242'],
    ['{{ data | card_bin }}', '378282246310005', '378282'],
    ['{{ data | card_bin }}', '4242-4242', { error: 'expects a card number made of digits' }],
    ['{{ data | card_bin }}', '4242', { error: 'shorter than its BIN' }],
    ['{{ data | card_bin }}', null, null],
  ],
  card_exp: [
    ["{{ data | card_exp: 'MM' }}", CARD, '10'],
    ["{{ data | card_exp: 'MMYY' }}", CARD, '1028'],
    ["{{ data | card_exp: 'MM/YY' }}", CARD, '10/28'],
    ["{{ data | card_exp: 'YYYY' }}", CARD, '2028'],
    ["{{ data | card_exp: 'YYYY-MM' }}", CARD, '2028-10'],
    ["{{ data | card_exp: 'YYYY/MM' }}", CARD, '2028/10'],
    ["{{ data | card_exp: 'MM/YYYY' }}", CARD, '10/2028'],
    ["{{ data | card_exp: 'MM_YYYY' }}", CARD, '10_2028'],
    ["{{ data | card_exp: 'MM-YYYY' }}", CARD, '10-2028'],
    ["{{ data | card_exp: 'MM/YY' }}", { expiration_month: 3, expiration_year: 2031 }, '03/31'],
    ['{{ data | card_exp }}', CARD, { error: 'date_expression is required' }],
    ["{{ data | card_exp: 'MM' }}", { number: '4242424242424242' }, { error: 'integer expiration_month' }],
    ["{{ data | card_exp: 'MM' }}", '1028', { error: 'expects a card' }],
  ],
  card_mask: [
    ["{{ data.number | card_mask: 'false', 'false', 'X', '-' }}", CARD, 'XXXXXXXXXXXXXXXX'],
    ["{{ data.number | card_mask: 'true', 'false', 'X', '-' }}", CARD, '36227206XXXXXXXX'],
    ["{{ data.number | card_mask: 'true', 'true', '#', '-' }}", CARD, '36227206####5567'],
    ["{{ data.number | card_mask: 'false', 'true', 'X', '-' }}", CARD, 'XXXXXXXXXXXX5567'],
    ["{{ data | card_mask: 'false', 'false', 'X', '-' }}", CARD_DASHED, 'XXXX-XXXX-XXXX-XXXX'],
    ["{{ data | card_mask: 'true', 'false', 'X', '-' }}", CARD_DASHED, '3622-7206-XXXX-XXXX'],
    ["{{ data | card_mask: 'true', 'true', '#', '-' }}", CARD_DASHED, '3622-7206-####-5567'],
    ["{{ data | card_mask: 'false', 'true', 'X', '-' }}", CARD_DASHED, 'XXXX-XXXX-XXXX-5567'],
    ['{{ data | card_mask: true, true }}', '378282246310005', '378282XXXXX0005'],
    ['{{ data | card_mask }}', '4242424242424242', 'XXXXXXXXXXXXXXXX'],
    // BIN + last four would reveal all ten digits → the whole value is masked.
    ['{{ data | card_mask: true, true }}', '1234567890', 'XXXXXXXXXX'],
    ["{{ data | card_mask: 'maybe' }}", '4242424242424242', { error: 'reveal_bin must be true or false' }],
  ],
  hmac: [
    [
      "{{ data | hmac: 'sha-256', 'secretKeyValue' | to_base16 }}",
      '4242424242424242',
      '90A0050E90515101DCAD0F68955370CCA81F6DCB9D299E7E0585CC9746716D9B',
    ],
    // Without an encoder the bytes print as upper-case hex, exactly what to_base16 gives.
    [
      "{{ data | hmac: 'sha-256', 'secretKeyValue' }}",
      '4242424242424242',
      '90A0050E90515101DCAD0F68955370CCA81F6DCB9D299E7E0585CC9746716D9B',
    ],
    [
      "{{ data | hmac: 'sha-256', 'secretKeyValue' | to_base64 }}",
      '4242424242424242',
      createHmac('sha256', 'secretKeyValue').update('4242424242424242').digest('base64'),
    ],
    ["{{ data | hmac: 'sha-1', 'k' | to_base16 }}", 'x', /^[0-9A-F]{40}$/],
    ["{{ data | hmac: 'SHA-512', 'k' | to_base16 }}", 'x', /^[0-9A-F]{128}$/],
    ["{{ data | hmac: 'sha-256', 'k' | to_base16 | downcase }}", 'x', /^[0-9a-f]{64}$/],
    ["{{ data | hmac: 'md5', 'k' }}", 'x', { error: 'algorithm must be one of sha-1, sha-256, sha-512' }],
    ["{{ data | hmac: 'sha-256' }}", 'x', { error: 'key is required' }],
    ["{{ data | hmac: 'sha-256', '' }}", 'x', { error: 'key must not be empty' }],
    ["{{ data | hmac: 'sha-256', 'k' }}", null, { error: 'has no value to sign' }],
  ],
  to_base64: [
    ['{{ data | to_base64 }}', 'hello', 'aGVsbG8='],
    ['{{ data | to_base64 }}', 'é', 'w6k='],
    ['{{ data | to_base64 }}', null, { error: 'has no value to encode' }],
    ['{{ data | to_base64 }}', { a: 1 }, { error: 'expects a string' }],
  ],
  to_base16: [
    ['{{ data | to_base16 }}', 'hello', '68656C6C6F'],
    ['{{ data | to_base16 }}', null, { error: 'has no value to encode' }],
  ],
};

describe('custom filters (worked examples)', () => {
  it('covers every custom filter with a table', () => {
    expect(Object.keys(table).sort()).toEqual([...CUSTOM_FILTER_NAMES]);
  });

  for (const [filter, cases] of Object.entries(table)) {
    describe(filter, () => {
      it.each(cases.map((c, i) => [i, ...c] as const))('case %i: %s', (_i, expression, data, expected) => {
        check([expression, data, expected]);
      });
    });
  }

  it('registers every custom filter on the engine', () => {
    const names = defaultEngine().filterNames();
    for (const name of CUSTOM_FILTER_NAMES) expect(names).toContain(name);
  });

  it('to_base64 and to_base16 of one digest encode the same bytes', () => {
    const digest = (encoder: string) =>
      evaluate(`{{ data | hmac: 'sha-256', 'secretKeyValue' | ${encoder} }}`, { data: 'secretText' });
    const hex = digest('to_base16');
    expect(hex).toMatch(/^[0-9A-F]{64}$/);
    expect(
      Buffer.from(String(digest('to_base64')), 'base64')
        .toString('hex')
        .toUpperCase(),
    ).toBe(hex);
  });
});

describe('standard Liquid filters stay standard', () => {
  const cases: Case[] = [
    ["{{ data.name | split: ' ' | last | upcase }}", { name: 'John Doe' }, 'DOE'],
    ["{{ data.name | split: ' ' | first | downcase }}", { name: 'John Doe' }, 'john'],
    // A trap: Liquid's slice with one negative argument returns ONE character.
    ['{{ data | slice: -4 }}', '4000056655665556', '5'],
    ['{{ data | slice: -4, 4 }}', '4000056655665556', '5556'],
    ["{{ data | remove: '-' }}", '123-45-6789', '123456789'],
    ["{{ data | replace: '-', '' }}", '123-45-6789', '123456789'],
    ["{{ data | append: '!' }}", 'hi', 'hi!'],
    ['{{ data.name.last | slice: 0, 1 }}.', { name: { last: 'Doe' } }, 'D.'],
    ['{{ data | size }}', 'abcd', 4],
    ['{{ data | jsonify }}', { a: 1 }, '{"a":1}'],
  ];
  it.each(cases)('%s', (expression, data, expected) => check([expression, data, expected]));

  it('reports a failing standard filter by name only', () => {
    const { message } = errorOf(() => evaluate('{{ data | url_decode }}', { data: 'secret-%E0%A4%A' }));
    expect(message).toBe("filter 'url_decode': could not be applied to its input");
  });
});

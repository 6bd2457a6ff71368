/** Token ids: shape rules, UUID default, alias expressions. */
import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import {
  FORBIDDEN_TOKEN_ID_CHARACTERS,
  MAX_SHARED_ID_RUN,
  idContainsData,
  resolveTokenId,
  validateTokenId,
} from './token-id.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function idErrors(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (isVaultError(error, 'VALIDATION_FAILED') && error.errors?.['id'] !== undefined)
      return error.errors['id'];
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('validateTokenId', () => {
  it.each([['abc'], ['a'.repeat(400)], ['my token id'], ['ü-ñ-😀'], ['card_123-ab.cd@x:y'], ['   ']])(
    'accepts %j',
    (id) => expect(validateTokenId(id)).toBeNull(),
  );

  it.each([['ab'], [''], ['a'.repeat(401)], [42], [null]])('refuses %j', (id) => {
    expect(validateTokenId(id)).not.toBeNull();
  });

  it.each(FORBIDDEN_TOKEN_ID_CHARACTERS.map((c) => [c]))('refuses the character %s', (c) => {
    expect(validateTokenId(`abc${c}def`)).toContain('must not contain');
  });

  it('counts code points', () => {
    expect(validateTokenId('😀😀😀')).toBeNull();
    expect(validateTokenId('😀'.repeat(400))).toBeNull();
  });
});

describe('resolveTokenId', () => {
  it('generates a UUID when no id is given', () => {
    expect(resolveTokenId(undefined, 'x', () => false)).toMatch(UUID);
    expect(resolveTokenId(null, 'x', () => false)).toMatch(UUID);
  });

  it('keeps a literal id', () => {
    expect(resolveTokenId('customer-42', 'x', () => true)).toBe('customer-42');
    expect(idErrors(() => resolveTokenId('a/b', 'x', () => false))[0]).toContain('must not contain');
    expect(idErrors(() => resolveTokenId(7, 'x', () => false))).toEqual(['must be a string']);
  });

  it('evaluates an alias expression', () => {
    expect(resolveTokenId('{{ data | alias_preserve_format: 0, 4 }}', '111-22-3333', () => false)).toMatch(
      /^\d{3}-\d{2}-3333$/,
    );
    expect(
      resolveTokenId(
        "{{ data.email | split: '@' | first | alias_preserve_length }}@{{ data.email | split: '@' | last }}",
        {
          email: 'john.doe@gmail.com',
        },
        () => false,
      ),
    ).toMatch(/^[a-z0-9]{8}@gmail\.com$/);
  });

  it('refuses an alias that is not a valid id', () => {
    expect(
      idErrors(() => resolveTokenId('{{ data | alias_preserve_format }}', 'a/b/c', () => false))[0],
    ).toMatch(/^the alias expression produced an id that must not contain/);
    expect(
      idErrors(() => resolveTokenId('{{ data | alias_preserve_length }}', 'ab', () => false))[0],
    ).toMatch(/^the alias expression produced an id that must be 3 to 400 characters/);
  });
});

describe('idContainsData', () => {
  it.each([
    ['the data itself', '4111111111111111', '4111111111111111'],
    ['five consecutive characters', 'x-41111-y', '4111111111111111'],
    ['separators and case ignored', '078-05', { ssn: '07805 1120' }],
    ['across a separator in the id', 'ab-cd-e', 'ABCDE'],
    ['a value deep in an object', 'tok-secret', { a: [{ b: 'my secret word' }] }],
    ['a number in the data', 'n-123456', { n: 123456 }],
    ['a whole short value', 'acct-789', { account: '789' }],
  ])('finds %s', (_name, id, data) => expect(idContainsData(id, data)).toBe(true));

  it.each([
    ['the last four only', '830-46-1120', '078-05-1120'],
    ['a random alias', '5829301746551111', '4111111111111111'],
    ['values too short to matter', 'id-12-ab', { month: 12, flag: true, none: null, x: 'ab' }],
    ['an unrelated id', 'order-2026-0001', 'Sensitive Value'],
  ])('allows %s', (_name, id, data) => expect(idContainsData(id, data)).toBe(false));

  it('shares at most MAX_SHARED_ID_RUN characters', () => {
    const data = 'abcdefghij';
    expect(idContainsData(`x${data.slice(2, 2 + MAX_SHARED_ID_RUN)}x`, data)).toBe(false);
    expect(idContainsData(`x${data.slice(2, 3 + MAX_SHARED_ID_RUN)}x`, data)).toBe(true);
  });

  it('handles large data without deep recursion or spreading', () => {
    const wide = Array.from({ length: 300_000 }, (_, i) => i % 7);
    expect(idContainsData('order-abc', wide)).toBe(false);
    let deep: unknown = 'the secret value';
    for (let i = 0; i < 10_000; i += 1) deep = [deep];
    expect(idContainsData('x-secre-y', deep)).toBe(true);
  });
});

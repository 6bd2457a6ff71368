/** Property tests of the masking and aliasing filters (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { FilterError } from './filter-error.ts';
import { evaluate } from './index.ts';
import {
  REVEAL_LAST_KEPT_SEPARATORS,
  aliasPreserveFormat,
  aliasPreserveLength,
  cardMask,
  codePoints,
  reveal,
  revealLast,
  secureRandomInt,
} from './text.ts';

const LETTER = /^[\p{L}\p{M}]$/u;
const NUMBER = /^\p{N}$/u;

/** Any Unicode text, with a bias towards the characters masks and aliases care about. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(...'0123456789-- abcXYZé'), maxLength: 40 }),
);
const small = fc.integer({ min: 0, max: 45 });
const digitString = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

function aliasOrNull(fn: () => string): string | null {
  try {
    return fn();
  } catch (error) {
    if (error instanceof FilterError) return null;
    throw error;
  }
}

describe('alias_preserve_format', () => {
  it('keeps the length, the character classes, the separators and the revealed ends', () => {
    fc.assert(
      fc.property(text, small, small, (value, first, last) => {
        const alias = aliasOrNull(() => aliasPreserveFormat(value, first, last, secureRandomInt));
        const input = codePoints(value);
        if (alias === null) {
          // Only refused when nothing at all would be randomised.
          const middle = input.slice(first, Math.max(first, input.length - last));
          expect(middle.some((c) => LETTER.test(c) || NUMBER.test(c))).toBe(false);
          return;
        }
        const output = codePoints(alias);
        expect(output).toHaveLength(input.length);
        input.forEach((c, i) => {
          const o = output[i] ?? '';
          if (i < first || i >= input.length - last) expect(o).toBe(c);
          else if (LETTER.test(c)) expect(o).toMatch(/^[a-z]$/);
          else if (NUMBER.test(c)) expect(o).toMatch(/^[0-9]$/);
          else expect(o).toBe(c);
        });
      }),
    );
  });

  it('gives different aliases for a long value (randomness)', () => {
    const a = evaluate('{{ data | alias_preserve_format }}', { data: '4242424242424242' });
    const b = evaluate('{{ data | alias_preserve_format }}', { data: '4242424242424242' });
    expect(a).not.toBe(b);
  });
});

describe('alias_preserve_length', () => {
  it('keeps the length and the revealed ends; the rest is [a-z0-9]', () => {
    fc.assert(
      fc.property(text, small, small, (value, first, last) => {
        const alias = aliasOrNull(() => aliasPreserveLength(value, first, last, secureRandomInt));
        const input = codePoints(value);
        if (alias === null) {
          expect(first + last).toBeGreaterThanOrEqual(input.length);
          return;
        }
        const output = codePoints(alias);
        expect(output).toHaveLength(input.length);
        output.forEach((o, i) => {
          if (i < first || i >= input.length - last) expect(o).toBe(input[i]);
          else expect(o).toMatch(/^[a-z0-9]$/);
        });
      }),
    );
  });
});

describe('reveal', () => {
  it('output length equals input length; only mask or preserved characters are hidden', () => {
    fc.assert(
      fc.property(
        text,
        small,
        small,
        fc.constantFrom('X', '#', '*'),
        fc.constantFrom('', '-', ' -'),
        (value, f, l, mask, keep) => {
          const output = codePoints(reveal(value, f, l, mask, keep));
          const input = codePoints(value);
          expect(output).toHaveLength(input.length);
          output.forEach((o, i) => {
            if (o !== input[i]) expect(o).toBe(mask);
          });
          if (input.length > 0 && input.length <= f + l) {
            expect(output.every((o, i) => o === mask || keep.includes(input[i] ?? ''))).toBe(true);
          }
        },
      ),
    );
  });

  it('never returns a value with a maskable character unchanged', () => {
    fc.assert(
      fc.property(digitString(1, 25), small, small, (value, f, l) => {
        expect(reveal(value, f, l, 'X', '')).not.toBe(value);
      }),
    );
  });
});

describe('reveal_last', () => {
  it('keeps the length and the last N characters; masks all but `-` before them', () => {
    fc.assert(
      fc.property(text, small, (value, n) => {
        const input = codePoints(value);
        const output = codePoints(revealLast(value, n, 'X'));
        expect(output).toHaveLength(input.length);
        if (input.length <= n) {
          expect(output.join('')).toBe(value);
          return;
        }
        const start = input.length - n;
        output.forEach((o, i) => {
          const c = input[i] ?? '';
          if (i >= start || REVEAL_LAST_KEPT_SEPARATORS.has(c)) expect(o).toBe(c);
          else expect(o).toBe('X');
        });
      }),
    );
  });

  it('a card mask never equals the card number', () => {
    fc.assert(
      fc.property(digitString(13, 19), (number) => {
        const masked = evaluate('{{ data | reveal_last: 4 }}', { data: number }) as string;
        expect(masked).not.toBe(number);
        expect(masked.slice(-4)).toBe(number.slice(-4));
        expect(masked.slice(0, -4)).toMatch(/^X+$/);
      }),
    );
  });
});

describe('card_mask', () => {
  it('keeps the length and never returns the number unmasked', () => {
    fc.assert(
      fc.property(digitString(1, 19), fc.boolean(), fc.boolean(), (number, bin, last4) => {
        const masked = cardMask(number, bin, last4, 'X', '');
        expect(masked).toHaveLength(number.length);
        expect(masked).not.toBe(number);
      }),
    );
  });
});

describe('evaluation is total', () => {
  it('any data either evaluates or fails with a 400 that does not quote it', () => {
    const expressions = [
      '{{ data | reveal_last: 4 }}',
      '{{ data | to_number }}',
      '{{ data | stringify }}',
      "{{ data | json: '$.a' }}",
      '{{ data | alias_preserve_format: 1, 1 }}',
      "{{ data | pad_left: 8, '0' }}",
      '{{ data | card_mask: true, true }}',
    ];
    const secret = fc.string({ unit: fc.constantFrom(...'QWERTZ'), minLength: 12, maxLength: 20 });
    const data = fc.oneof(
      secret,
      secret.map((s) => ({ a: s })),
      secret.map((s) => [s, s]),
      secret.map((s) => ({ a: { b: s } })),
    );
    fc.assert(
      fc.property(fc.constantFrom(...expressions), data, (expression, value) => {
        try {
          evaluate(expression, { data: value });
        } catch (error) {
          expect(isVaultError(error, 'VALIDATION_FAILED')).toBe(true);
          const leaked = JSON.stringify([(error as Error).message, (error as { errors?: unknown }).errors]);
          const secretText =
            typeof value === 'string' ? value : JSON.stringify(value).replace(/[^QWERTZ]+/g, ' ');
          for (const part of secretText.split(' ').filter((p) => p.length >= 12)) {
            expect(leaked).not.toContain(part);
          }
        }
      }),
    );
  });
});

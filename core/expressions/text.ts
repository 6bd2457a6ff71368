/**
 * Pure string functions behind the masking, aliasing and card filters. They know nothing about Liquid:
 * `filters.ts` parses the filter arguments and calls these. All lengths and positions count Unicode code
 * points (an emoji is one character), so a mask never splits a surrogate pair.
 *
 * Failures throw `FilterError` with a reason that names arguments only, never the value.
 */
import { randomInt } from 'node:crypto';
import { FilterError } from './filter-error.ts';

/** Uniform integer in [0, maxExclusive). Injected in tests; the default is node's CSPRNG. */
export type RandomInt = (maxExclusive: number) => number;

export const secureRandomInt: RandomInt = (maxExclusive) => randomInt(maxExclusive);

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALPHANUMERIC = LETTERS + DIGITS;

/** Letters (and combining marks, so an accent never survives alone) are aliased to letters. */
const LETTER = /^[\p{L}\p{M}]$/u;
/** Any numeric character is aliased to an ASCII digit. */
const NUMBER = /^\p{N}$/u;

/**
 * The separators `reveal_last` keeps in the masked part: `-` only (`123-45-6789` → `XXX-XX-6789`,
 * `12-3456789` → `XX-XXX6789`), so identifiers keep the grouping people recognise them by. A space
 * is masked (`Sensitive Value` → `XXXXXXXXXXXalue`), as is everything else: a mask shows as little
 * of the value's shape as it can while staying recognisable.
 */
export const REVEAL_LAST_KEPT_SEPARATORS: ReadonlySet<string> = new Set(['-']);

export function codePoints(value: string): string[] {
  return Array.from(value);
}

/**
 * `reveal`: keep the first `first` and last `last` characters and the characters listed in
 * `preserveChars`; every other character becomes `maskChar`. When the value is not longer than
 * `first + last`, or the result would equal the value, the whole value is masked (characters in
 * `preserveChars` still kept).
 */
export function reveal(
  value: string,
  first: number,
  last: number,
  maskChar: string,
  preserveChars: string,
): string {
  const chars = codePoints(value);
  const preserve = new Set(codePoints(preserveChars));
  const maskWhole = (): string => chars.map((c) => (preserve.has(c) ? c : maskChar)).join('');
  if (chars.length <= first + last) return maskWhole();
  const end = chars.length - last;
  const masked = chars.map((c, i) => (i < first || i >= end || preserve.has(c) ? c : maskChar)).join('');
  return masked === value ? maskWhole() : masked;
}

/**
 * `reveal_last`: keep the last `length` characters; before them every character becomes `maskChar`
 * except the separators in `REVEAL_LAST_KEPT_SEPARATORS` (`-`). A value not longer than `length` is
 * returned whole: every character of it is among the last `length`.
 */
export function revealLast(value: string, length: number, maskChar: string): string {
  const chars = codePoints(value);
  if (chars.length <= length) return value;
  const start = chars.length - length;
  return chars.map((c, i) => (i >= start || REVEAL_LAST_KEPT_SEPARATORS.has(c) ? c : maskChar)).join('');
}

/** `last4`: the last four characters, or the whole value when shorter. */
export function last4(value: string): string {
  return codePoints(value).slice(-4).join('');
}

export function padLeft(value: string, length: number, padChar: string): string {
  const missing = length - codePoints(value).length;
  return missing > 0 ? padChar.repeat(missing) + value : value;
}

export function padRight(value: string, length: number, padChar: string): string {
  const missing = length - codePoints(value).length;
  return missing > 0 ? value + padChar.repeat(missing) : value;
}

const ALIAS_REVEALS_ALL = 'the alias would reveal the whole value; reveal fewer characters';

/**
 * `alias_preserve_format`: letters become random lower-case ASCII letters, numeric characters random
 * digits, everything else (punctuation, whitespace, symbols) is kept; the first `first` and last `last`
 * characters are copied. Fails when nothing would be randomised (the id would be the data itself).
 */
export function aliasPreserveFormat(value: string, first: number, last: number, random: RandomInt): string {
  const chars = codePoints(value);
  if (chars.length === 0) return '';
  const end = chars.length - last;
  let randomised = 0;
  const alias = chars.map((c, i) => {
    if (i < first || i >= end) return c;
    if (LETTER.test(c)) {
      randomised += 1;
      return LETTERS.charAt(random(LETTERS.length));
    }
    if (NUMBER.test(c)) {
      randomised += 1;
      return DIGITS.charAt(random(DIGITS.length));
    }
    return c;
  });
  if (randomised === 0) throw new FilterError(ALIAS_REVEALS_ALL);
  return alias.join('');
}

/**
 * `alias_preserve_length`: every character except the first `first` and last `last` becomes a random
 * character of `[a-z0-9]`. Fails when `first + last` covers the whole value.
 */
export function aliasPreserveLength(value: string, first: number, last: number, random: RandomInt): string {
  const chars = codePoints(value);
  if (chars.length === 0) return '';
  if (first + last >= chars.length) throw new FilterError(ALIAS_REVEALS_ALL);
  const end = chars.length - last;
  return chars.map((c, i) => (i < first || i >= end ? c : ALPHANUMERIC.charAt(random(36)))).join('');
}

/** BIN length rule of the later card filters: 6 digits below 16 digits, 8 from 16 digits on. */
export function binLength(digitCount: number): number {
  return digitCount < 16 ? 6 : 8;
}

/** `card_bin`: the first 6 or 8 digits of the number with every `separator` removed. */
export function cardBin(number: string, separator: string): string {
  const digits = separator === '' ? number : number.split(separator).join('');
  if (!/^\d+$/.test(digits))
    throw new FilterError('expects a card number made of digits (pass the separator)');
  const length = binLength(digits.length);
  if (digits.length < length) throw new FilterError('the card number is shorter than its BIN');
  return digits.slice(0, length);
}

/**
 * `card_mask`: masks the number except, optionally, the BIN and the last four; characters in
 * `preserveChars` are kept and do not count as digits. If nothing would be masked the whole value is.
 */
export function cardMask(
  number: string,
  revealBin: boolean,
  revealLast4: boolean,
  maskChar: string,
  preserveChars: string,
): string {
  const chars = codePoints(number);
  const preserve = new Set(codePoints(preserveChars));
  const count = chars.filter((c) => !preserve.has(c)).length;
  const bin = binLength(count);
  let index = 0;
  const masked = chars
    .map((c) => {
      if (preserve.has(c)) return c;
      const i = index;
      index += 1;
      const shown = (revealBin && i < bin) || (revealLast4 && i >= count - 4);
      return shown ? c : maskChar;
    })
    .join('');
  if (masked !== number || number === '') return masked;
  return chars.map((c) => (preserve.has(c) ? c : maskChar)).join('');
}

/**
 * `card_exp`: formats an expiration date. In `format`, `YYYY` is the four-digit year, `YY` the
 * two-digit year and `MM` the two-digit month; every other character is copied.
 */
export function cardExp(month: number, year: number, format: string): string {
  const mm = String(month).padStart(2, '0');
  const yyyy = String(year).padStart(4, '0');
  const yy = yyyy.slice(-2);
  let out = '';
  let i = 0;
  while (i < format.length) {
    if (format.startsWith('YYYY', i)) {
      out += yyyy;
      i += 4;
    } else if (format.startsWith('YY', i)) {
      out += yy;
      i += 2;
    } else if (format.startsWith('MM', i)) {
      out += mm;
      i += 2;
    } else {
      out += format.charAt(i);
      i += 1;
    }
  }
  return out;
}

/**
 * The custom filters (2022 set plus the cheap later ones), as plain
 * functions of (input, arguments). `engine.ts` registers them on the Liquid engine.
 *
 * Conventions shared by all of them:
 * - Inputs: strings are used as they are; numbers and booleans are turned into their text; `null`
 *   or a missing value gives `null` ("null in, null out"), except `hmac`, `to_base64` and
 *   `to_base16`, which fail on a missing value: a digest or an encoding of nothing would pass for
 *   one of a real value. Objects and arrays are refused by the text filters.
 * - Arguments are positional. Integers may be given as numbers or digit strings; a `char` argument is
 *   exactly one character; booleans may be `true`/`false` or the strings `'true'`/`'false'`.
 * - Failures throw `FilterError`; its reason names the argument, never the value or the argument's
 *   content (an `hmac` key is a secret).
 */
import { createHmac } from 'node:crypto';
import { Drop, toValue } from 'liquidjs';
import { FilterError } from './filter-error.ts';
import { jsonPathValues } from './jsonpath.ts';
import {
  aliasPreserveFormat,
  aliasPreserveLength,
  cardBin,
  cardExp,
  cardMask,
  codePoints,
  last4,
  padLeft,
  padRight,
  reveal,
  revealLast,
  secureRandomInt,
} from './text.ts';
import type { RandomInt } from './text.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

/**
 * Bytes produced by `hmac`. `to_base64` / `to_base16` encode the bytes; anywhere else (printed, or
 * piped into a text filter) they read as upper-case hex, the same text `to_base16` produces.
 */
export class Bytes extends Drop {
  constructor(readonly bytes: Uint8Array) {
    super();
  }

  override valueOf(): string {
    return Buffer.from(this.bytes).toString('hex').toUpperCase();
  }

  override toString(): string {
    return this.valueOf();
  }
}

/** What a filter may use from the render it runs in. */
export interface FilterCall {
  /** Charge `units` (characters or elements) against the render's memory limit. */
  readonly charge: (units: number) => void;
  /** Charge `steps` of work beyond the call itself (heavy filters) against the step budgets. */
  readonly work: (steps: number) => void;
  readonly random: RandomInt;
}

export type FilterBody = (input: unknown, args: readonly unknown[], call: FilterCall) => unknown;

export const MAX_INTEGER_ARGUMENT = 1_000_000;

/**
 * Extra steps of a keyed hash: measured at about ten template nodes per call, plus the input, so
 * that a loop of `hmac` calls is stopped as early (in time) as a loop of cheap filters.
 */
export const HMAC_STEPS = 10;
/** Input bytes per extra `hmac` step. */
export const HMAC_BYTES_PER_STEP = 256;
/** Extra steps of a `json` (JSONPath) call. */
export const JSONPATH_STEPS = 20;
/**
 * A JSONPath that filters, wildcards or descends may visit every value of its input: such a path
 * is charged one more step per value in the input.
 */
const JSONPATH_SCANS = /[?*(]|\.\./;

// ---- argument parsing --------------------------------------------------------------------------

function argument(args: readonly unknown[], index: number): unknown {
  const raw = args[index];
  if (Array.isArray(raw)) throw new FilterError('does not take named arguments');
  return raw === undefined || raw === null ? undefined : toValue(raw);
}

function integerArg(args: readonly unknown[], index: number, label: string, fallback?: number): number {
  const value = argument(args, index);
  if (value === undefined) {
    if (fallback === undefined) throw new FilterError(`${label} is required`);
    return fallback;
  }
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_INTEGER_ARGUMENT) {
    throw new FilterError(`${label} must be an integer between 0 and ${MAX_INTEGER_ARGUMENT}`);
  }
  return n;
}

function stringArg(args: readonly unknown[], index: number, label: string, fallback?: string): string {
  const value = argument(args, index);
  if (value === undefined) {
    if (fallback === undefined) throw new FilterError(`${label} is required`);
    return fallback;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new FilterError(`${label} must be a string`);
  return value;
}

function charArg(args: readonly unknown[], index: number, label: string, fallback?: string): string {
  const value = stringArg(args, index, label, fallback);
  if (codePoints(value).length !== 1) throw new FilterError(`${label} must be exactly one character`);
  return value;
}

function booleanArg(args: readonly unknown[], index: number, label: string, fallback: boolean): boolean {
  const value = argument(args, index);
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  throw new FilterError(`${label} must be true or false`);
}

// ---- input coercion ----------------------------------------------------------------------------

/** The text a filter works on, or null for a missing value. */
function textInput(input: unknown): string | null {
  const value = toValue(input);
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new FilterError('expects a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  throw new FilterError(
    Array.isArray(value) ? 'expects a string, not an array' : 'expects a string, not an object',
  );
}

/** The card number of a string input or of a card object's `number`. */
function cardNumberInput(input: unknown): string | null {
  const value = toValue(input);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return textInput((value as Record<string, unknown>)['number']);
  }
  return textInput(value);
}

function bytesInput(input: unknown): Uint8Array {
  if (input instanceof Bytes) return input.bytes;
  const text = textInput(input);
  if (text === null) throw new FilterError('has no value to encode');
  return Buffer.from(text, 'utf8');
}

function integerField(card: Record<string, unknown>, key: string): number {
  const raw = toValue(card[key]);
  const n = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw new FilterError(`expects a card with an integer ${key}`);
  }
  return n;
}

const uncharged = (): void => {};

/**
 * Plain JSON copy: Liquid drops resolved, `undefined` and functions dropped as JSON.stringify would.
 * `charge` is told the size of the copy (one unit per value and per character of strings and keys).
 */
export function toPlainJson(value: unknown, charge: (units: number) => void = uncharged, depth = 0): unknown {
  if (depth > 256) throw new FilterError('the value is nested too deeply');
  const v = toValue(value);
  charge(1);
  if (v === null || v === undefined) return v;
  if (Array.isArray(v)) return v.map((item) => toPlainJson(item, charge, depth + 1) ?? null);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex').toUpperCase();
  if (typeof v === 'string') charge(v.length);
  if (typeof v === 'object') {
    const out = keyedRecord<unknown>();
    for (const [key, item] of Object.entries(v)) {
      charge(key.length);
      const plain = toPlainJson(item, charge, depth + 1);
      if (plain !== undefined && typeof plain !== 'function') out[key] = plain;
    }
    return out;
  }
  if (typeof v === 'function' || typeof v === 'symbol') return undefined;
  if (typeof v === 'bigint') return v.toString();
  return v;
}

const valueCounts = new WeakMap<object, number>();

/** How many values (objects, arrays, primitives) `value` holds; remembered per object. */
function valueCount(value: unknown, depth = 0): number {
  if (value === null || typeof value !== 'object' || depth > 256) return 1;
  const known = valueCounts.get(value);
  if (known !== undefined) return known;
  let count = 1;
  for (const item of Object.values(value)) count += valueCount(item, depth + 1);
  valueCounts.set(value, count);
  return count;
}

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

const HMAC_ALGORITHMS: Readonly<Record<string, string>> = {
  'sha-1': 'sha1',
  'sha-256': 'sha256',
  'sha-512': 'sha512',
};

// ---- the filters -------------------------------------------------------------------------------

export const CUSTOM_FILTERS: Readonly<Record<string, FilterBody>> = {
  alias_preserve_format(input, args, call) {
    const text = textInput(input);
    if (text === null) return null;
    const first = integerArg(args, 0, 'reveal_first_length', 0);
    const last = integerArg(args, 1, 'reveal_last_length', 0);
    return aliasPreserveFormat(text, first, last, call.random);
  },

  alias_preserve_length(input, args, call) {
    const text = textInput(input);
    if (text === null) return null;
    const first = integerArg(args, 0, 'reveal_first_length', 0);
    const last = integerArg(args, 1, 'reveal_last_length', 0);
    return aliasPreserveLength(text, first, last, call.random);
  },

  json(input, args, call) {
    const path = stringArg(args, 0, 'json_path_expression');
    const value = toValue(input);
    if (value === null || value === undefined) return null;
    call.work(JSONPATH_STEPS + (JSONPATH_SCANS.test(path) ? valueCount(value) : 0));
    const values = jsonPathValues(value, path);
    if (values.length === 0)
      throw new FilterError('the JSONPath expression selected no value; it must select exactly one');
    if (values.length > 1)
      throw new FilterError('the JSONPath expression selected several values; it must select exactly one');
    return values[0];
  },

  last4(input) {
    const text = textInput(input);
    return text === null ? null : last4(text);
  },

  pad_left(input, args, call) {
    const text = textInput(input);
    const length = integerArg(args, 0, 'length');
    const padChar = charArg(args, 1, 'pad_char');
    if (text === null) return null;
    call.charge(length);
    return padLeft(text, length, padChar);
  },

  pad_right(input, args, call) {
    const text = textInput(input);
    const length = integerArg(args, 0, 'length');
    const padChar = charArg(args, 1, 'pad_char');
    if (text === null) return null;
    call.charge(length);
    return padRight(text, length, padChar);
  },

  reveal(input, args) {
    const text = textInput(input);
    const first = integerArg(args, 0, 'reveal_first', 0);
    const last = integerArg(args, 1, 'reveal_last', 0);
    const maskChar = charArg(args, 2, 'mask_char', 'X');
    const preserve = stringArg(args, 3, 'preserve_chars', '');
    return text === null ? null : reveal(text, first, last, maskChar, preserve);
  },

  reveal_last(input, args) {
    const text = textInput(input);
    const length = integerArg(args, 0, 'length');
    const maskChar = charArg(args, 1, 'mask_char', 'X');
    return text === null ? null : revealLast(text, length, maskChar);
  },

  stringify(input, _args, call) {
    const value = toValue(input);
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value;
    // The copy is charged as it is made (about the size of the text), so an over-budget value
    // stops part-way instead of being copied and serialised whole first.
    return JSON.stringify(toPlainJson(value, call.charge)) ?? null;
  },

  to_boolean(input) {
    const value = toValue(input);
    if (value === null || value === undefined) return null;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'string') {
      const text = value.trim().toLowerCase();
      if (text === 'true') return true;
      if (text === 'false') return false;
    }
    throw new FilterError('the value cannot be cast to a boolean');
  },

  to_number(input) {
    const value = toValue(input);
    if (value === null || value === undefined) return null;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && NUMERIC.test(value.trim())) {
      const n = Number(value.trim());
      if (Number.isFinite(n)) return n;
    }
    throw new FilterError('the value cannot be cast to a number');
  },

  to_string(input) {
    const value = toValue(input);
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value;
    if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean')
      return String(value);
    throw new FilterError('the value cannot be cast to a string (objects and arrays cannot)');
  },

  card_bin(input, args) {
    const number = cardNumberInput(input);
    const separator = stringArg(args, 0, 'separator_char', '');
    return number === null ? null : cardBin(number, separator);
  },

  card_exp(input, args) {
    const format = stringArg(args, 0, 'date_expression');
    const value = toValue(input);
    if (value === null || value === undefined) return null;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new FilterError('expects a card with expiration_month and expiration_year');
    }
    const card = value as Record<string, unknown>;
    const month = integerField(card, 'expiration_month');
    const year = integerField(card, 'expiration_year');
    if (month < 1 || month > 12) throw new FilterError('expects a card whose expiration_month is 1 to 12');
    return cardExp(month, year, format);
  },

  card_mask(input, args) {
    const number = cardNumberInput(input);
    const revealBin = booleanArg(args, 0, 'reveal_bin', false);
    const revealLast4 = booleanArg(args, 1, 'reveal_last4', false);
    const maskChar = charArg(args, 2, 'mask_char', 'X');
    const preserve = stringArg(args, 3, 'preserve_char', '');
    return number === null ? null : cardMask(number, revealBin, revealLast4, maskChar, preserve);
  },

  hmac(input, args, call) {
    const algorithm = stringArg(args, 0, 'algorithm', 'sha-256').trim().toLowerCase();
    const key = stringArg(args, 1, 'key');
    const digest = HMAC_ALGORITHMS[algorithm];
    if (digest === undefined) throw new FilterError('algorithm must be one of sha-1, sha-256, sha-512');
    if (key === '') throw new FilterError('key must not be empty');
    if (input === null || input === undefined) throw new FilterError('has no value to sign');
    const bytes = bytesInput(input);
    call.work(HMAC_STEPS + Math.floor((bytes.length + key.length) / HMAC_BYTES_PER_STEP));
    return new Bytes(createHmac(digest, key).update(bytes).digest());
  },

  to_base64(input) {
    return Buffer.from(bytesInput(input)).toString('base64');
  },

  to_base16(input) {
    return Buffer.from(bytesInput(input)).toString('hex').toUpperCase();
  },
};

export const CUSTOM_FILTER_NAMES: readonly string[] = Object.freeze(Object.keys(CUSTOM_FILTERS).sort());

export const defaultRandom: RandomInt = secureRandomInt;

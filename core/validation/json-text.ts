/**
 * Rules for a JSON request body that only its raw text can show, checked before `JSON.parse`
 * (which silently turns `123456789012345678901234567890` into `1.2345678901234568e+29`, `1e400`
 * into `Infinity` and invalid UTF-8 into U+FFFD):
 *
 * - the bytes are UTF-8 (the only encoding JSON exchanged between systems may use), without invalid
 *   sequences;
 * - every number literal is exactly what a 64-bit float holds: its value, written back, has the
 *   same digits (`0.1`, `1.50`, `1e2` pass; `9007199254740993` and `1e-400` do not); and it is finite;
 * - no `\u` escape leaves a lone surrogate (the string could not be written back as UTF-8);
 * - arrays and objects nest at most `MAX_JSON_BODY_DEPTH` levels;
 * - its objects hold at most `MAX_JSON_BODY_MEMBERS` members in all, counted before anything is
 *   parsed: building an object costs far more per member than an array per element (a 1 MiB body
 *   of one object of 60,000 keys is a long parse), and every member is work for whoever walks it.
 *
 * The scan is one pass and does not check the grammar: `JSON.parse` still does. Messages give an
 * offset into the body, never its content.
 */

/**
 * Deepest nesting of a body. Above token data's own limit (MAX_DATA_DEPTH, 64) because data sits
 * inside a tokenize request, which nests too.
 */
export const MAX_JSON_BODY_DEPTH = 128;

/**
 * Object members of a body, all objects together (array elements are not counted: a token's data
 * may be a list filling a 1 MiB body). Room for a tokenize of 1000 definitions of rich data.
 */
export const MAX_JSON_BODY_MEMBERS = 50_000;

export type JsonTextProblem =
  | { readonly kind: 'encoding'; readonly message: string }
  | { readonly kind: 'content'; readonly message: string };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The body's text, or the encoding problem. */
export function decodeJsonBody(bytes: Uint8Array): { text: string } | JsonTextProblem {
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    return { kind: 'encoding', message: 'The request body is not valid UTF-8.' };
  }
}

/** Digits without leading or trailing zeros and the power of ten they are scaled by. */
function decimalOf(literal: string): { digits: string; exponent: number } {
  const match = /^-?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return { digits: '', exponent: 0 };
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(match[3] ?? '0') - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  return { digits, exponent: digits === '' ? 0 : exponent };
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Why a number literal cannot be stored exactly, or null (also for a malformed one: the parser says). */
export function numberLiteralProblem(literal: string): string | null {
  // Fifteen digits or fewer, without an exponent: always exact (a double holds 15 significant
  // decimal digits), and far from overflow or underflow. Most numbers end here.
  if (literal.length <= 15 && !literal.includes('e') && !literal.includes('E')) return null;
  if (!JSON_NUMBER.test(literal)) return null;
  const value = Number(literal);
  if (!Number.isFinite(value)) return 'is out of range (not a finite number)';
  const written = decimalOf(literal);
  const held = decimalOf(String(Math.abs(value)));
  if (written.digits !== held.digits || written.exponent !== held.exponent) {
    return 'has more precision than a JSON number can carry here (send it as a string)';
  }
  return null;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** Characters of a number literal: digits, `-`, `+`, `.`, `e`, `E`. */
const isNumberChar = (c: number): boolean =>
  isDigit(c) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
/** Where a string's plain run ends: its closing quote or an escape. */
const STRING_STOP = /["\\]/g;

const loneSurrogate = (at: number): JsonTextProblem => ({
  kind: 'content',
  message: `The string at offset ${at} has a \\u escape that is a lone surrogate.`,
});

/**
 * Skips the string whose opening quote is at `open`; returns the offset after its closing quote
 * (the text's length when it is unterminated: the parser reports that), or a lone-surrogate problem.
 */
function skipString(text: string, open: number): number | JsonTextProblem {
  let i = open + 1;
  let pendingHigh = false;
  for (;;) {
    STRING_STOP.lastIndex = i;
    const stop = STRING_STOP.exec(text);
    if (stop === null) return text.length;
    const at = stop.index;
    // A high surrogate escape must be followed at once by a low one.
    if (pendingHigh && at !== i) return loneSurrogate(i);
    if (text.charCodeAt(at) === 0x22 /* " */) return pendingHigh ? loneSurrogate(at) : at + 1;
    if (text[at + 1] === 'u') {
      const unit = Number.parseInt(text.slice(at + 2, at + 6), 16);
      const low = unit >= 0xdc00 && unit <= 0xdfff;
      if (pendingHigh !== low) return loneSurrogate(at);
      pendingHigh = unit >= 0xd800 && unit <= 0xdbff;
      i = at + 6;
      continue;
    }
    if (pendingHigh) return loneSurrogate(at);
    i = at + 2;
  }
}

/**
 * Member names a JSON parser must choose how to read: as an own member, or as the object's
 * prototype (`__proto__`, and `prototype` inside a `constructor` member). The API refuses them
 * rather than choose; saying so is clearer than calling valid JSON malformed.
 */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Longest spelling of those names as a JSON string: every character a `\u` escape, and the quotes. */
const PROTOTYPE_NAME_MAX_TEXT = 'constructor'.length * 6 + 2;

/**
 * The name the string `text.slice(open, close)` gives an object member, however escaped, when it
 * is one of PROTOTYPE_NAMES; null for any other string.
 */
function prototypeMemberName(text: string, open: number, close: number): string | null {
  if (close - open < 11 || close - open > PROTOTYPE_NAME_MAX_TEXT) return null;
  let j = close;
  while (j < text.length && (text[j] === ' ' || text[j] === '\t' || text[j] === '\n' || text[j] === '\r'))
    j += 1;
  if (text[j] !== ':') return null;
  const raw = text.slice(open, close);
  let name: unknown = raw.slice(1, -1);
  if (raw.includes('\\')) {
    try {
      name = JSON.parse(raw);
    } catch {
      return null; // a malformed escape: the parser reports it
    }
  }
  return typeof name === 'string' && PROTOTYPE_NAMES.has(name) ? name : null;
}

/** The first problem of a decoded body's text, or null. */
export function jsonTextProblem(
  text: string,
  maxDepth = MAX_JSON_BODY_DEPTH,
  maxMembers = MAX_JSON_BODY_MEMBERS,
): JsonTextProblem | null {
  let depth = 0;
  let members = 0;
  let i = 0;
  // Per open object or array: whether it is an object that is the value of a `constructor` member.
  const inConstructor: boolean[] = [];
  let constructorValueNext = false;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const next = skipString(text, i);
      if (typeof next !== 'number') return next;
      const name = prototypeMemberName(text, i, next);
      if (name === '__proto__' || (name === 'prototype' && inConstructor.at(-1) === true)) {
        const member = name === '__proto__' ? name : 'constructor.prototype';
        return { kind: 'content', message: `The member named ${member} at offset ${i} is not accepted.` };
      }
      constructorValueNext = name === 'constructor';
      i = next;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > maxDepth) {
        return { kind: 'content', message: `The body is nested deeper than ${maxDepth} levels.` };
      }
      inConstructor.push(c === 0x7b && constructorValueNext);
      constructorValueNext = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
      inConstructor.pop();
    } else if (c === 0x2c /* , */) {
      constructorValueNext = false;
    } else if (c === 0x3a /* : */) {
      // Outside strings, every member of an object has exactly one colon.
      members += 1;
      if (members > maxMembers) {
        return {
          kind: 'content',
          message: `The body's objects may hold at most ${maxMembers} members in all.`,
        };
      }
    } else if (c === 0x2d /* - */ || isDigit(c)) {
      const start = i;
      while (i < text.length && isNumberChar(text.charCodeAt(i))) i += 1;
      const problem = numberLiteralProblem(text.slice(start, i));
      if (problem !== null) return { kind: 'content', message: `The number at offset ${start} ${problem}.` };
      continue;
    }
    i += 1;
  }
  return null;
}

/**
 * Rules for a JSON request body that only its raw text can show, checked before `JSON.parse`
 * (which silently turns `123456789012345678901234567890` into `1.2345678901234568e+29`, `1e400`
 * into `Infinity` and invalid UTF-8 into U+FFFD):
 *
 * - the bytes are UTF-8 (RFC 8259 §8.1), without invalid sequences;
 * - every number literal is exactly what a 64-bit float holds: its value, written back, has the
 *   same digits (`0.1`, `1.50`, `1e2` pass; `9007199254740993` and `1e-400` do not); and it is finite;
 * - no `\u` escape leaves a lone surrogate (the string could not be written back as UTF-8);
 * - arrays and objects nest at most `MAX_JSON_BODY_DEPTH` levels.
 *
 * The scan is one pass and does not check the grammar: `JSON.parse` still does. Messages give an
 * offset into the body, never its content.
 */

/**
 * Deepest nesting of a body. Above token data's own limit (MAX_DATA_DEPTH, 64) because data sits
 * inside a tokenize request, which nests too.
 */
export const MAX_JSON_BODY_DEPTH = 128;

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
const NUMBER_CHAR = /[-+.eE0-9]/;

/** The first problem of a decoded body's text, or null. */
export function jsonTextProblem(text: string, maxDepth = MAX_JSON_BODY_DEPTH): JsonTextProblem | null {
  let depth = 0;
  let i = 0;
  const content = (message: string): JsonTextProblem => ({ kind: 'content', message });
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i += 1;
      let pendingHigh = false;
      while (i < text.length && text.charCodeAt(i) !== 0x22) {
        if (text.charCodeAt(i) === 0x5c /* \ */) {
          if (text[i + 1] === 'u') {
            const unit = Number.parseInt(text.slice(i + 2, i + 6), 16);
            const high = unit >= 0xd800 && unit <= 0xdbff;
            const low = unit >= 0xdc00 && unit <= 0xdfff;
            if (pendingHigh !== low) {
              return content(`The string at offset ${i} has a \\u escape that is a lone surrogate.`);
            }
            pendingHigh = high;
            i += 6;
            continue;
          }
          if (pendingHigh) {
            return content(`The string at offset ${i} has a \\u escape that is a lone surrogate.`);
          }
          i += 2;
          continue;
        }
        if (pendingHigh) {
          return content(`The string at offset ${i} has a \\u escape that is a lone surrogate.`);
        }
        i += 1;
      }
      if (pendingHigh) return content(`The string at offset ${i} has a \\u escape that is a lone surrogate.`);
      i += 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > maxDepth) return content(`The body is nested deeper than ${maxDepth} levels.`);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
    } else if (c === 0x2d /* - */ || isDigit(c)) {
      const start = i;
      while (i < text.length && NUMBER_CHAR.test(text[i] ?? '')) i += 1;
      const problem = numberLiteralProblem(text.slice(start, i));
      if (problem !== null) return content(`The number at offset ${start} ${problem}.`);
      continue;
    }
    i += 1;
  }
  return null;
}

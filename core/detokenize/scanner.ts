/**
 * Finds detokenization expressions `{{ <token id> | filter | … }}` in a string. The token id is the
 * text before the first `|` outside quotes; the rest (if any) is a Liquid filter chain applied to the
 * token's data. A `}}` inside a quoted filter argument does not end the expression.
 */
import { validationError } from '../errors/catalogue.ts';

export interface ScannedExpression {
  /** Offset of the opening `{{` in the text. */
  readonly start: number;
  /** Offset just after the closing `}}`. */
  readonly end: number;
  /** The token id, trimmed. */
  readonly tokenId: string;
  /** The filter chain after the first `|`, trimmed; empty when there is none. */
  readonly filters: string;
}

/** One piece of a scanned string: literal text or an expression. */
export type Piece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'expression'; readonly expression: ScannedExpression };

const WHITESPACE = /\s/;

/** Index of the first `|` outside single or double quotes, or -1. */
function firstPipe(inner: string): number {
  let quote: string | null = null;
  for (let i = 0; i < inner.length; i += 1) {
    const c = inner[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '|') {
      return i;
    }
  }
  return -1;
}

/** Offset of the `}}` closing the expression whose inner text starts at `from`, or -1. */
function closingBraces(text: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < text.length - 1; i += 1) {
    const c = text[i];
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '}' && text[i + 1] === '}') {
      return i;
    }
  }
  return -1;
}

/**
 * The string split into literal text and expressions. An opening `{{` without its `}}`, or an
 * expression without a token id (or with whitespace inside the id), is a 400 naming `field`.
 */
export function scanText(text: string, field: string): Piece[] {
  const pieces: Piece[] = [];
  let cursor = 0;
  for (;;) {
    const open = text.indexOf('{{', cursor);
    if (open < 0) break;
    const close = closingBraces(text, open + 2);
    if (close < 0) throw validationError({ [field]: ['has a "{{" without its closing "}}"'] });
    const inner = text.slice(open + 2, close);
    const pipe = firstPipe(inner);
    const tokenId = (pipe < 0 ? inner : inner.slice(0, pipe)).trim();
    const filters = pipe < 0 ? '' : inner.slice(pipe + 1).trim();
    if (tokenId === '' || WHITESPACE.test(tokenId)) {
      throw validationError({ [field]: ['has a detokenization expression without a valid token id'] });
    }
    if (pipe >= 0 && filters === '') {
      throw validationError({ [field]: ['has a detokenization expression with an empty filter'] });
    }
    if (open > cursor) pieces.push({ kind: 'text', text: text.slice(cursor, open) });
    pieces.push({ kind: 'expression', expression: { start: open, end: close + 2, tokenId, filters } });
    cursor = close + 2;
  }
  if (cursor < text.length) pieces.push({ kind: 'text', text: text.slice(cursor) });
  return pieces;
}

/** Whether a string may hold an expression (cheap pre-check before scanning). */
export function mayHoldExpression(text: string): boolean {
  return text.includes('{{');
}

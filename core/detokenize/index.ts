/**
 * Detokenization of `{{ <token id> | filters }}` expressions, shared by reactor invocation, the
 * proxy and `POST /detokenize`.
 *
 * API:
 * - `createDetokenizer(vault, keys)` → `Detokenizer` (services build one: `services.detokenizer`).
 * - `detokenizer.detokenize(principal, value, { permission, field?, mode?, maxTokens? })` → a copy
 *   of the JSON `value` with every expression replaced (see detokenizer.ts for the rules).
 * - `detokenizer.detokenizeText(principal, text, { permission, field?, maxTokens? })` → string.
 *   To detokenize several parts of one request (a body and its headers) under one 100-token budget,
 *   pass them as one object: `detokenize(p, { body, headers }, …)`.
 * - `scanText(text, field)` → the pieces of one string, for callers that only need to look.
 */
export { MAX_DETOKENIZED_TOKENS, MAX_DETOKENIZE_DEPTH, createDetokenizer } from './detokenizer.ts';
export type { DetokenizeOptions, DetokenizePermission, Detokenizer } from './detokenizer.ts';
export { mayHoldExpression, scanText } from './scanner.ts';
export type { Piece, ScannedExpression } from './scanner.ts';

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { isVaultError, VaultError, type FieldErrors } from '../../../core/errors/catalogue.ts';
import {
  MAX_TOKEN_PAGE_SIZE,
  TOKEN_TYPE_NAMES,
  TOKEN_TYPES,
  type TokenType,
} from '../../../core/tokens/index.ts';
import { choiceOf } from '../../options/values.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { isPlainObject } from '../../../core/validation/json-value.ts';
import { jsonTextProblem } from '../../../core/validation/json-text.ts';

/**
 * Input of the token commands. Token data is secret, so nothing here ever quotes what it read:
 * JSON errors give a position, file errors a path and an errno code. For the same reason JSON
 * flags (`--data`, `--patch`) are parsed by the runner, not by commander, whose errors quote the
 * argument ("option '--data <json>' argument '…' is invalid").
 */

/** Where a JSON value comes from. `label` names it in errors ("--data", "the file x.json"). */
export type JsonSource =
  | { readonly kind: 'text'; readonly text: string; readonly label: string }
  | { readonly kind: 'file'; readonly path: string; readonly label: string }
  | { readonly kind: 'stdin'; readonly label: string };

/** `--x-file <file>`: a path resolved against the working directory, `-` for standard input. */
export function fileSource(deps: CliDeps, file: string): JsonSource {
  if (file === '-') return { kind: 'stdin', label: 'standard input' };
  const resolved = path.resolve(deps.cwd, file);
  return { kind: 'file', path: resolved, label: `the file ${resolved}` };
}

export function textSource(text: string, label: string): JsonSource {
  return { kind: 'text', text, label };
}

/** `--x <json>` (labelled `flag`) or else `--x-file <file>`; undefined when neither is given. */
export function jsonSourceOf(
  deps: CliDeps,
  text: string | undefined,
  file: string | undefined,
  flag: string,
): JsonSource | undefined {
  if (text !== undefined) return textSource(text, flag);
  return file === undefined ? undefined : fileSource(deps, file);
}

/** "line 2, column 5" of a character offset, for JSON errors that cannot quote the text. */
function where(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return line === 1 ? `column ${column}` : `line ${line}, column ${column}`;
}

/**
 * Parses JSON without ever echoing it: V8's messages quote the input ("Unexpected token 'x', "…" is
 * not valid JSON"), so only the position survives. The API's rules for a request body (a number
 * JSON.parse would round, a lone surrogate, a prototype member, nesting) apply first, so a command
 * stores the same on its own vault as through a server, never a silently altered value.
 */
export function parseJson(text: string, label: string): unknown {
  if (text.trim() === '') throw new VaultError('MALFORMED_JSON', `${label} is empty`);
  // A bare number is left to the caller, which says how to quote a number meant as text.
  const problem = /^\s*-?\d/.test(text) ? null : jsonTextProblem(text);
  if (problem !== null) throw new VaultError('VALIDATION_FAILED', `${label}: ${problem.message}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    const at = position === undefined ? '' : ` (at ${where(text, Number(position))})`;
    // A bare value (123-45-6789, an unquoted word) is the usual slip: say how to write a string.
    const bare = label.startsWith('--') && !/^\s*[[{"]/.test(text);
    const hint = bare ? `; a text value needs JSON quotes: ${label} '"…"'` : '';
    throw new VaultError('MALFORMED_JSON', `${label} is not valid JSON${at}${hint}`);
  }
}

export async function readText(deps: CliDeps, source: JsonSource): Promise<string> {
  switch (source.kind) {
    case 'text':
      return source.text;
    case 'stdin':
      return deps.readStdin();
    case 'file':
      try {
        return await readFile(source.path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        throw new VaultError('USAGE', `cannot read ${source.label} (${code})`);
      }
  }
}

export async function readJson(deps: CliDeps, source: JsonSource): Promise<unknown> {
  // A UTF-8 byte order mark is not JSON, but editors on some systems write one.
  return parseJson((await readText(deps, source)).replace(/^\uFEFF/, ''), source.label);
}

export { isPlainObject };

/**
 * `--metadata key=value`, repeatable: split at the first `=`. Metadata is non-sensitive by
 * definition (spec: never put secrets there), so commander may quote it in its errors.
 */
export function collectMetadata(
  value: string,
  previous: Record<string, string> | undefined,
): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('Expected key=value.');
  const key = value.slice(0, at).trim();
  if (key === '') throw new InvalidArgumentError('Expected key=value.');
  if (previous !== undefined && Object.hasOwn(previous, key)) {
    throw new InvalidArgumentError(`The key '${key}' is given twice.`);
  }
  return { ...previous, [key]: value.slice(at + 1) };
}

/** Repeatable flags whose values may contain commas (expressions): one value per flag. */
export function collectRepeated(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `--type a --type b,c`: repeatable, comma-separated, each one of the token types. */
export function collectTokenTypes(value: string, previous: TokenType[] | undefined): TokenType[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const types = names.map(choiceOf(TOKEN_TYPE_NAMES));
  return [...(previous ?? []), ...types];
}

function wholeNumber(text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(`Expected a whole number between ${min} and ${max}.`);
  }
  return value;
}

export function parsePage(text: string): number {
  return wholeNumber(text, 1, 1_000_000_000);
}

export function parseSize(text: string): number {
  return wholeNumber(text, 1, MAX_TOKEN_PAGE_SIZE);
}

// ---- secrets in messages ----------------------------------------------------------------------

/** Shorter strings are too likely to be ordinary words of a message ("data", "type"). */
const MIN_SCRUBBED_LENGTH = 6;

/** Every string and number inside `value` that is long enough to be worth scrubbing. */
export function secretsOf(value: unknown, into: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > 64) return into;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    const text = String(value);
    if (text.length >= MIN_SCRUBBED_LENGTH) into.add(text);
  } else if (Array.isArray(value)) {
    for (const item of value) secretsOf(item, into, depth + 1);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) secretsOf(item, into, depth + 1);
  }
  return into;
}

/**
 * The secrets of a POST /tokenize body: the data of each token definition (an object with `type`
 * and `data`) and every other plain value (each becomes a token). A definition's type, mask and
 * other settings are no secret, and scrubbing them would cut the valid values out of a message
 * ("must be one of: token, card, …").
 */
export function tokenizeSecretsOf(body: unknown, into: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > 64) return into;
  if (Array.isArray(body)) {
    for (const item of body) tokenizeSecretsOf(item, into, depth + 1);
  } else if (isPlainObject(body)) {
    if ('type' in body && 'data' in body) return secretsOf(body.data, into, depth + 1);
    for (const item of Object.values(body)) tokenizeSecretsOf(item, into, depth + 1);
  } else {
    secretsOf(body, into, depth);
  }
  return into;
}

export function scrub(text: string, secrets: ReadonlySet<string>): string {
  let out = text;
  // Longest first, so a secret containing another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('…');
  return out;
}

/**
 * Defence in depth: core promises never to put token data in its errors; the CLI still removes
 * any of the input's values from an error before it can reach a terminal or a summary.
 */
export function scrubError(error: unknown, secrets: ReadonlySet<string>): unknown {
  if (!isVaultError(error) || secrets.size === 0) return error;
  let errors: FieldErrors | undefined;
  if (error.errors !== undefined) {
    errors = {};
    for (const [field, messages] of Object.entries(error.errors)) {
      errors[scrub(field, secrets)] = messages.map((message) => scrub(message, secrets));
    }
  }
  const message = scrub(error.message, secrets);
  if (message === error.message && JSON.stringify(errors) === JSON.stringify(error.errors)) return error;
  return new VaultError(error.code, message, { errors, cause: error });
}

/** Runs `fn`, scrubbing `secrets` out of what it throws. */
export async function scrubbing<T>(secrets: ReadonlySet<string>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw scrubError(error, secrets);
  }
}

// ---- interactive data -------------------------------------------------------------------------

/** The token type: asked with a list on a terminal. */
export async function promptTokenType(deps: CliDeps): Promise<TokenType> {
  return deps.prompter.select<TokenType>({
    message: 'Token type:',
    choices: TOKEN_TYPE_NAMES.map((type) => ({
      value: type,
      description: `default container ${TOKEN_TYPES[type].defaultContainer}`,
    })),
    default: 'token',
  });
}

/** Core's own validation of one value, as a prompt's retry message (never quoting the value). */
function checkWith(type: TokenType): (value: string) => string | undefined {
  return (value) => {
    if (value === '') return 'Enter a value.';
    const [problem] = TOKEN_TYPES[type].validate(value).data ?? [];
    return problem === undefined ? undefined : `The value ${problem}.`;
  };
}

function optionalDigits(min: number, max: number): (value: string) => string | undefined {
  return (value) =>
    value === '' || (/^\d+$/.test(value) && value.length >= min && value.length <= max)
      ? undefined
      : `Enter ${min === max ? min : `${min} to ${max}`} digits, or nothing to skip.`;
}

/** "12" → 12 (card months and years are integers); anything else is left for core to reject by name. */
function integerOrText(text: string): number | string {
  return /^\d{1,9}$/.test(text) ? Number(text) : text;
}

/**
 * The data of one token, asked field by field. Secret fields use hidden input (nothing echoed, so
 * nothing in the scrollback); the expiry of a card is not secret.
 */
export async function promptTokenData(deps: CliDeps, type: TokenType): Promise<unknown> {
  const hidden = (message: string, validate: (value: string) => string | undefined) =>
    deps.prompter.password({ message, validate });
  switch (type) {
    case 'card': {
      const data: Record<string, unknown> = {
        number: await hidden('Card number (hidden):', checkWith('card_number')),
      };
      const month = (
        await deps.prompter.input({ message: 'Expiration month (1-12, empty to skip):' })
      ).trim();
      if (month !== '') data.expiration_month = integerOrText(month);
      const year = (await deps.prompter.input({ message: 'Expiration year (YYYY, empty to skip):' })).trim();
      if (year !== '') data.expiration_year = integerOrText(year);
      const cvc = await hidden('CVC (hidden, empty to skip):', optionalDigits(3, 4));
      if (cvc !== '') data.cvc = cvc;
      return data;
    }
    case 'bank':
      return {
        routing_number: await hidden('Routing number (hidden):', checkWith('us_bank_routing_number')),
        account_number: await hidden('Account number (hidden):', (value) =>
          /^\d{1,17}$/.test(value) ? undefined : 'Enter up to 17 digits.',
        ),
      };
    case 'token':
      return hidden('Value to tokenize (hidden):', (value) => (value === '' ? 'Enter a value.' : undefined));
    default:
      return hidden(`Value (${type}, hidden):`, checkWith(type));
  }
}

/**
 * The token type table.
 *
 * For each type: how `data` is validated, the default container, the default fingerprint expression,
 * the default mask, the default search indexes, and whether the caller may supply `search_indexes`
 * (only `token`, `social_security_number`, `employer_id_number`). Every type accepts a custom `mask`
 * (the service interface lists it on every type, with the type's mask as the default).
 *
 * Validation decisions (errors name fields like `data`, `data.number`; messages never quote the data):
 * - Every typed value must be a JSON string (a JSON number would lose digits and leading zeros).
 * - `card`: `number` required, 13–19 ASCII digits without separators, Luhn-valid; `expiration_month`
 *   optional integer 1–12; `expiration_year` optional four-digit integer (1000–9999); `cvc` optional
 *   string of 3–4 digits; `null` counts as absent; any other field is refused (a typo such as
 *   `exp_month` would otherwise be stored silently, outside the default mask).
 * - `bank`: `routing_number` required, nine digits with a valid ABA checksum; `account_number`
 *   required, 1–17 digits; other fields refused.
 * - `social_security_number` / `employer_id_number`: digit groups joined by single `-`
 *   (`123-45-6789`, `12-3456789`, `123456789`), exactly nine digits; no leading, trailing or doubled `-`.
 * - `token`: any JSON value except `null`, nested at most 64 levels, with finite numbers only
 *   (`core/validation/json-value.ts`).
 */
import { validationError } from '../errors/catalogue.ts';
import type { FieldErrors } from '../errors/catalogue.ts';
import { jsonValueProblem } from '../validation/json-value.ts';
import { abaRoutingValid } from './aba.ts';
import { luhnValid } from './luhn.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { deepFreeze } from '../validation/deep-freeze.ts';
import { didYouMeanSuffix } from '../validation/suggest.ts';

export const TOKEN_TYPE_NAMES = [
  'token',
  'card',
  'bank',
  'card_number',
  'us_bank_account_number',
  'us_bank_routing_number',
  'social_security_number',
  'employer_id_number',
] as const;

export type TokenType = (typeof TOKEN_TYPE_NAMES)[number];

/** A mask: `null` (none), an expression, or an object/array whose leaf strings are expressions. */
export type MaskTemplate =
  string | number | boolean | null | readonly MaskTemplate[] | { readonly [key: string]: MaskTemplate };

export interface TokenTypeDefinition {
  readonly type: TokenType;
  /** Container used when the request gives none. */
  readonly defaultContainer: string;
  /** Fingerprint expression used when the request gives none. */
  readonly fingerprintExpression: string;
  /** Mask used when the request gives none; `null` means the type has no mask. */
  readonly mask: MaskTemplate;
  /** Search index expressions used when the request gives none. */
  readonly defaultSearchIndexes: readonly string[];
  /** Whether a request may supply `search_indexes` for this type. */
  readonly searchIndexesAllowed: boolean;
  /** Field errors of `data` (empty when valid). */
  readonly validate: (data: unknown) => FieldErrors;
}

// ---- validators --------------------------------------------------------------------------------

type Errors = Record<string, string[]>;

function add(errors: Errors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

const DIGITS = /^\d+$/;
const DASHED_DIGITS = /^\d+(?:-\d+)*$/;

function cardNumberProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string of digits';
  if (!DIGITS.test(value) || value.length < 13 || value.length > 19) {
    return 'must be 13 to 19 digits without separators';
  }
  if (!luhnValid(value)) return 'is not a valid card number (Luhn check failed)';
  return null;
}

function digitsProblem(value: unknown, min: number, max: number): string | null {
  if (typeof value !== 'string') return 'must be a string of digits';
  if (!DIGITS.test(value) || value.length < min || value.length > max) {
    return min === max ? `must be ${min} digits` : `must be ${min} to ${max} digits`;
  }
  return null;
}

function routingNumberProblem(value: unknown): string | null {
  const shape = digitsProblem(value, 9, 9);
  if (shape !== null) return shape;
  return abaRoutingValid(value as string) ? null : 'is not a valid ABA routing number (checksum failed)';
}

function nineDigitsWithDashesProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string of digits';
  if (!DASHED_DIGITS.test(value) || value.replaceAll('-', '').length !== 9) {
    return "must be 9 digits, optionally grouped with '-'";
  }
  return null;
}

function primitive(check: (value: unknown) => string | null): (data: unknown) => FieldErrors {
  return (data): FieldErrors => {
    if (data === undefined || data === null) return { data: ['is required'] };
    const problem = check(data);
    return problem === null ? {} : { data: [problem] };
  };
}

function objectOf(
  kind: string,
  fields: Readonly<
    Record<string, { readonly required: boolean; readonly check: (value: unknown) => string | null }>
  >,
): (data: unknown) => FieldErrors {
  return (data) => {
    if (data === undefined || data === null) return { data: ['is required'] };
    if (!isPlainObject(data)) return { data: [`must be a ${kind} object`] };
    const errors: Errors = {};
    for (const [name, rule] of Object.entries(fields)) {
      const value = data[name];
      if (value === undefined || value === null) {
        if (rule.required) add(errors, `data.${name}`, 'is required');
        continue;
      }
      const problem = rule.check(value);
      if (problem !== null) add(errors, `data.${name}`, problem);
    }
    for (const name of Object.keys(data)) {
      if (!Object.hasOwn(fields, name)) add(errors, `data.${name}`, `is not a ${kind} field`);
    }
    return errors;
  };
}

const validateCard = objectOf('card', {
  number: { required: true, check: cardNumberProblem },
  expiration_month: {
    required: false,
    check: (v) =>
      Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 12
        ? null
        : 'must be an integer from 1 to 12',
  },
  expiration_year: {
    required: false,
    check: (v) =>
      Number.isInteger(v) && (v as number) >= 1000 && (v as number) <= 9999
        ? null
        : 'must be a four-digit integer year',
  },
  cvc: {
    required: false,
    check: (v) => (typeof v === 'string' && /^\d{3,4}$/.test(v) ? null : 'must be a string of 3 or 4 digits'),
  },
});

const validateBank = objectOf('bank', {
  routing_number: { required: true, check: routingNumberProblem },
  account_number: { required: true, check: (v) => digitsProblem(v, 1, 17) },
});

function validateAnyToken(data: unknown): FieldErrors {
  if (data === undefined || data === null) return { data: ['is required'] };
  const problem = jsonValueProblem(data);
  return problem === null ? {} : { data: [problem] };
}

// ---- the table ---------------------------------------------------------------------------------

const REVEAL_LAST_4 = '{{ data | reveal_last: 4 }}';
const WITHOUT_DASHES = "{{ data | remove: '-' }}";
/** SSN / EIN defaults (D `api-reference/_tokens.md` "Searching Data"): raw, without `-`, last 4. */
const DASHED_SEARCH_INDEXES = ['{{ data }}', WITHOUT_DASHES, '{{ data | last4 }}'] as const;

/** SSN and EIN: nine digits, optionally dashed; one fingerprint with or without the dashes. */
function nineDigitsWithDashes(type: TokenType): TokenTypeDefinition {
  return {
    type,
    defaultContainer: '/pii/high/',
    fingerprintExpression: WITHOUT_DASHES,
    mask: REVEAL_LAST_4,
    defaultSearchIndexes: DASHED_SEARCH_INDEXES,
    searchIndexesAllowed: true,
    validate: primitive(nineDigitsWithDashesProblem),
  };
}

export const TOKEN_TYPES: Readonly<Record<TokenType, TokenTypeDefinition>> = deepFreeze({
  token: {
    type: 'token',
    defaultContainer: '/general/high/',
    fingerprintExpression: '{{ data | stringify }}',
    mask: null,
    defaultSearchIndexes: [],
    searchIndexesAllowed: true,
    validate: validateAnyToken,
  },
  card: {
    type: 'card',
    defaultContainer: '/pci/high/',
    fingerprintExpression: '{{ data.number }}',
    mask: {
      number: '{{ data.number | reveal_last: 4 }}',
      expiration_month: '{{ data.expiration_month }}',
      expiration_year: '{{ data.expiration_year }}',
    },
    defaultSearchIndexes: [],
    searchIndexesAllowed: false,
    validate: validateCard,
  },
  bank: {
    type: 'bank',
    defaultContainer: '/bank/high/',
    fingerprintExpression: '{{ data.account_number }}|{{ data.routing_number }}',
    mask: {
      routing_number: '{{ data.routing_number }}',
      account_number: '{{ data.account_number | reveal_last: 4 }}',
    },
    defaultSearchIndexes: [],
    searchIndexesAllowed: false,
    validate: validateBank,
  },
  card_number: {
    type: 'card_number',
    defaultContainer: '/pci/high/',
    fingerprintExpression: '{{ data }}',
    mask: REVEAL_LAST_4,
    defaultSearchIndexes: [],
    searchIndexesAllowed: false,
    validate: primitive(cardNumberProblem),
  },
  us_bank_account_number: {
    type: 'us_bank_account_number',
    defaultContainer: '/bank/high/',
    fingerprintExpression: '{{ data }}',
    mask: REVEAL_LAST_4,
    defaultSearchIndexes: [],
    searchIndexesAllowed: false,
    validate: primitive((v) => digitsProblem(v, 3, 17)),
  },
  us_bank_routing_number: {
    type: 'us_bank_routing_number',
    defaultContainer: '/bank/low/',
    fingerprintExpression: '{{ data }}',
    mask: REVEAL_LAST_4,
    defaultSearchIndexes: [],
    searchIndexesAllowed: false,
    validate: primitive(routingNumberProblem),
  },
  social_security_number: nineDigitsWithDashes('social_security_number'),
  employer_id_number: nineDigitsWithDashes('employer_id_number'),
} satisfies Record<TokenType, TokenTypeDefinition>);

export function isTokenType(name: unknown): name is TokenType {
  return typeof name === 'string' && Object.hasOwn(TOKEN_TYPES, name);
}

/** What is wrong with a type that is no token type: the valid ones, and the nearest for a near miss. */
export function unknownTokenType(name: unknown): string {
  const near = typeof name === 'string' ? didYouMeanSuffix(name, TOKEN_TYPE_NAMES) : '';
  return `must be one of: ${TOKEN_TYPE_NAMES.join(', ')}${near}`;
}

/** The definition of `name`; 400 naming `type` when it is missing or unknown. */
export function tokenTypeOf(name: unknown): TokenTypeDefinition {
  if (name === undefined || name === null || name === '') throw validationError({ type: ['is required'] });
  if (!isTokenType(name)) {
    throw validationError({ type: [unknownTokenType(name)] });
  }
  return TOKEN_TYPES[name];
}

/** Field errors of `data` for `type` (an unknown type is reported under `type`). */
export function validateTokenData(type: unknown, data: unknown): FieldErrors {
  if (!isTokenType(type)) return { type: [unknownTokenType(type)] };
  return TOKEN_TYPES[type].validate(data);
}

/** Throws 400 with every field error of `data` for `type`. */
export function assertTokenData(type: unknown, data: unknown): void {
  const errors = validateTokenData(type, data);
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

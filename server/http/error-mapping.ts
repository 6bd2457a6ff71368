import type { FastifyError } from 'fastify';
import { VaultError, isVaultError, validationError, type ErrorCode } from '../../core/errors/catalogue.ts';
import { fieldErrorsFrom } from './validation-errors.ts';

export interface MappedError {
  readonly error: VaultError;
  /** True when the failure is ours (a bug or a storage fault): log it, and never echo its message. */
  readonly unexpected: boolean;
}

/** Fastify's own request errors whose catalogue code is known. */
const FRAMEWORK_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
};

/** Maps anything thrown while serving a request onto the catalogue. */
export function mapError(thrown: unknown): MappedError {
  if (isVaultError(thrown)) {
    // A 5xx VaultError is still our failure: its detail may name files or internal state.
    return thrown.status >= 500
      ? {
          error: new VaultError(thrown.code, genericDetail(thrown.title), { cause: thrown }),
          unexpected: true,
        }
      : { error: thrown, unexpected: false };
  }
  if (isFastifyError(thrown)) {
    if (thrown.validation !== undefined) {
      return {
        error: validationError(fieldErrorsFrom(thrown.validation, thrown.validationContext)),
        unexpected: false,
      };
    }
    const code = FRAMEWORK_CODES[thrown.code];
    if (code === 'MALFORMED_JSON') {
      // Every 400 names what is wrong in `errors`: here the body as a whole.
      return {
        error: new VaultError(code, undefined, { errors: { body: ['is not valid JSON'] } }),
        unexpected: false,
      };
    }
    if (code !== undefined) return { error: new VaultError(code), unexpected: false };
    // Other framework 4xx (bad URL encoding, Content-Length mismatch, over-long path parameter) are
    // malformed requests; Fastify's messages for them quote at most the client's own path.
    const status = thrown.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return {
        error: validationError({ [requestPartOf(thrown.code)]: [thrown.message] }, thrown.message),
        unexpected: false,
      };
    }
  }
  return { error: new VaultError('INTERNAL', genericDetail()), unexpected: true };
}

/** The part of the request a framework 4xx is about, as the key of its `errors` entry. */
function requestPartOf(code: string): string {
  if (code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_MAX_PARAM_LENGTH') return 'path';
  if (code.startsWith('FST_ERR_CTP')) return 'body';
  return 'request';
}

function genericDetail(title?: string): string {
  const what = title ?? 'An unexpected error occurred.';
  return `${what} The details are in the server log under this request's SVC-TRACE-ID.`;
}

function isFastifyError(value: unknown): value is FastifyError {
  return (
    value instanceof Error &&
    typeof (value as Partial<FastifyError>).code === 'string' &&
    ((value as FastifyError).code.startsWith('FST_') || (value as FastifyError).validation !== undefined)
  );
}

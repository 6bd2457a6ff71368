/**
 * The one catalogue of errors. Every failure the product reports is one of these codes; the HTTP edge
 * turns it into a problem+json body and the CLI into a one-line message with a stable exit code.
 * Messages here are generic on purpose: details passed at the throw site must never contain token
 * data, keys or passphrases.
 */
export interface ErrorDefinition {
  /** HTTP status at the API edge. */
  readonly status: number;
  /** Short human summary of the problem class (problem+json `title`). */
  readonly title: string;
  /** Exit code in the CLI: 1 error, 2 usage, 3 unavailable (try again later), 4 authentication or lock. */
  readonly exitCode: 1 | 2 | 3 | 4;
}

export const errorCatalogue = {
  // Request shape
  VALIDATION_FAILED: { status: 400, title: 'One or more validation errors occurred.', exitCode: 2 },
  MALFORMED_JSON: { status: 400, title: 'The request body is not valid JSON.', exitCode: 2 },
  UNAUTHENTICATED: { status: 401, title: 'Authentication required.', exitCode: 4 },
  FORBIDDEN: { status: 403, title: 'Forbidden.', exitCode: 4 },
  NOT_FOUND: { status: 404, title: 'Not found.', exitCode: 1 },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed.', exitCode: 1 },
  CONFLICT: { status: 409, title: 'Conflict.', exitCode: 1 },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large.', exitCode: 1 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type.', exitCode: 2 },
  UNPROCESSABLE: { status: 422, title: 'The request cannot be processed.', exitCode: 1 },
  RATE_LIMITED: { status: 429, title: 'Too many requests.', exitCode: 1 },
  MISDIRECTED_REQUEST: {
    status: 421,
    title: 'The Host header names no host this server answers for.',
    exitCode: 1,
  },
  INTERNAL: { status: 500, title: 'Internal server error.', exitCode: 1 },
  MAIL_FAILED: { status: 502, title: 'The e-mail could not be sent.', exitCode: 1 },
  // Outbound requests (proxy, sandbox fetch)
  DESTINATION_TIMEOUT: { status: 408, title: 'The destination did not answer in time.', exitCode: 1 },
  DESTINATION_UNREACHABLE: { status: 502, title: 'The destination could not be reached.', exitCode: 1 },
  // Reactor code (the error classes it can throw, and what the sandbox ends)
  PAYMENT_REQUIRED: { status: 402, title: 'Payment required.', exitCode: 1 },
  REACTOR_TIMEOUT: { status: 408, title: 'The reactor did not finish in time.', exitCode: 1 },
  REACTOR_RUNTIME: { status: 500, title: 'Reactor runtime error.', exitCode: 1 },
  // Exit 3: the database (or a service the command needs) cannot be reached now; a retry may succeed.
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable.', exitCode: 3 },
  // Vault storage and keys
  VAULT_NOT_FOUND: { status: 500, title: 'No vault exists at this path.', exitCode: 1 },
  VAULT_EXISTS: { status: 409, title: 'A vault already exists at this path.', exitCode: 1 },
  VAULT_LOCKED: { status: 423, title: 'The vault is held by another process.', exitCode: 4 },
  VAULT_WRONG_KEY: { status: 401, title: 'The key or passphrase does not unlock this vault.', exitCode: 4 },
  VAULT_KEY_REQUIRED: {
    status: 401,
    title: 'A key or passphrase is needed to open this vault.',
    exitCode: 4,
  },
  VAULT_CORRUPT: { status: 500, title: 'The vault files are damaged.', exitCode: 1 },
  // A row that decides access no longer matches its MAC (changed outside the vault): refused.
  INTEGRITY_FAILED: { status: 500, title: 'A stored record failed its integrity check.', exitCode: 1 },
  VAULT_FAILED: {
    status: 503,
    title: 'The vault stopped accepting writes after a storage failure.',
    exitCode: 1,
  },
  VAULT_CLOSED: { status: 503, title: 'The vault is closed.', exitCode: 1 },
  VAULT_DISK_FULL: {
    status: 507,
    title: 'The vault is out of space: it refuses writes until space is freed.',
    exitCode: 1,
  },
  CONFIG_INVALID: { status: 500, title: 'The configuration is invalid.', exitCode: 2 },
  USAGE: { status: 400, title: 'Invalid usage.', exitCode: 2 },
  CANCELLED: { status: 400, title: 'Cancelled.', exitCode: 2 },
  LISTEN_FAILED: { status: 500, title: 'The server could not listen on its address.', exitCode: 1 },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Field name → messages, as in the problem+json `errors` map. */
export type FieldErrors = Record<string, string[]>;

export class VaultError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly exitCode: 1 | 2 | 3 | 4;
  readonly errors: FieldErrors | undefined;
  /** RATE_LIMITED: seconds until the caller may try again (the HTTP edge's Retry-After), when known. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    detail?: string,
    options?: { errors?: FieldErrors; cause?: unknown; retryAfterSeconds?: number },
  ) {
    const def: ErrorDefinition = errorCatalogue[code];
    super(detail ?? def.title, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VaultError';
    this.code = code;
    this.status = def.status;
    this.title = def.title;
    this.exitCode = def.exitCode;
    this.errors = options?.errors;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** The `detail` of a problem+json body. */
  get detail(): string {
    return this.message;
  }
}

export function isVaultError(value: unknown, code?: ErrorCode): value is VaultError {
  return value instanceof VaultError && (code === undefined || value.code === code);
}

/** A validation failure with one or more field errors. */
export function validationError(errors: FieldErrors, detail?: string): VaultError {
  return new VaultError('VALIDATION_FAILED', detail ?? 'One or more validation errors occurred.', { errors });
}

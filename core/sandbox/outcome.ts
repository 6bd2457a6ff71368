/**
 * What an invocation's end means for the caller: the code's output, a problem (a VaultError from
 * the catalogue), or the exact response a `CustomHttpResponseError` asked for.
 *
 * Error-class table (thrown by formula code, `require('@svc/reactor-errors')`):
 *   AuthenticationError 401 · AuthorizationError 403 · BadRequestError 400 ·
 *   InvalidPaymentMethodError 402 · InvalidReactorConfigurationError 400 ·
 *   InvalidReactorFormulaError 422 · RateLimitError 429 · ReactorRuntimeError 500 ·
 *   ServiceUnavailableError 503 — each with its fixed detail text and the normalised `errors` map
 *   (the 5xx ones name only their class: they are logged, never shown, and the map may quote token data);
 *   CustomHttpResponseError → its own status, headers and body.
 * Anything else thrown → 500 REACTOR_RUNTIME naming only the thrown class (its message might quote
 * token data); deadline → 408 REACTOR_TIMEOUT; memory, stack, output size, a promise that never
 * settles → 500 REACTOR_RUNTIME saying which limit.
 * The report comes from inside the sandbox and is untrusted: every field is checked again here.
 */
import { VaultError } from '../errors/catalogue.ts';
import type { ErrorCode, FieldErrors } from '../errors/catalogue.ts';
import type { SandboxLimits } from './limits.ts';
import { ERROR_FALLBACK, REACTOR_ERROR_CLASSES } from './prelude.ts';
import type { ReactorErrorClass } from './prelude.ts';
import type { RunResult } from './protocol.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

export type SandboxOutcome =
  | { readonly kind: 'ok'; readonly output: unknown }
  | { readonly kind: 'problem'; readonly error: VaultError }
  | {
      readonly kind: 'custom-response';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly body: unknown;
    };

const CLASS_CODES: Readonly<Record<ReactorErrorClass, ErrorCode>> = {
  AuthenticationError: 'UNAUTHENTICATED',
  AuthorizationError: 'FORBIDDEN',
  BadRequestError: 'VALIDATION_FAILED',
  InvalidPaymentMethodError: 'PAYMENT_REQUIRED',
  InvalidReactorConfigurationError: 'VALIDATION_FAILED',
  InvalidReactorFormulaError: 'UNPROCESSABLE',
  RateLimitError: 'RATE_LIMITED',
  ReactorRuntimeError: 'REACTOR_RUNTIME',
  ServiceUnavailableError: 'SERVICE_UNAVAILABLE',
};

/** Bounds on an `errors` map coming from formula code. */
const MAX_ERROR_KEYS = 50;
const MAX_ERROR_MESSAGES = 50;
const MAX_ERROR_TEXT = 1000;

/** Header names a custom response may set: RFC 7230 tokens, minus the ones the server owns. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SERVER_OWNED_HEADERS = new Set([
  'connection',
  'content-length',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export const INVALID_FORMULA_DETAIL = REACTOR_ERROR_CLASSES.InvalidReactorFormulaError.detail;
export const RUNTIME_DETAIL = REACTOR_ERROR_CLASSES.ReactorRuntimeError.detail;

function text(value: unknown): string {
  const s = typeof value === 'string' ? value : ERROR_FALLBACK;
  return s.length > MAX_ERROR_TEXT ? `${s.slice(0, MAX_ERROR_TEXT)}…` : s;
}

/** The `errors` map as the class normalised it, bounded; a malformed one becomes the fallback. */
export function checkedErrors(value: unknown): FieldErrors {
  if (!isPlainObject(value)) return { error: [ERROR_FALLBACK] };
  const out: FieldErrors = keyedRecord();
  for (const key of Object.keys(value).slice(0, MAX_ERROR_KEYS)) {
    const messages = value[key];
    out[text(key)] = Array.isArray(messages)
      ? messages.slice(0, MAX_ERROR_MESSAGES).map(text)
      : [text(messages)];
  }
  return Object.keys(out).length === 0 ? { error: [ERROR_FALLBACK] } : out;
}

/** Header values as strings; names that are not tokens or that the server owns are dropped. */
export function checkedHeaders(value: unknown): Record<string, string> {
  const out = keyedRecord<string>();
  if (!isPlainObject(value)) return out;
  for (const [name, raw] of Object.entries(value)) {
    if (!HEADER_NAME.test(name) || SERVER_OWNED_HEADERS.has(name.toLowerCase())) continue;
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') continue;
    const headerValue = String(raw);
    // No CR/LF or other control characters: they would split or corrupt the response.
    if ([...headerValue].some(isControl)) continue;
    out[name] = headerValue;
  }
  return out;
}

/** Control characters other than horizontal tab. */
function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code < 0x20 && code !== 0x09) || code === 0x7f;
}

function runtimeProblem(reason: string): SandboxOutcome {
  return {
    kind: 'problem',
    error: new VaultError('REACTOR_RUNTIME', RUNTIME_DETAIL, { errors: { error: [reason] } }),
  };
}

function invalidFormula(reason: string): VaultError {
  return new VaultError('UNPROCESSABLE', `${INVALID_FORMULA_DETAIL}: ${reason}`);
}

/** `line <n>, column <m>: <message>` of a compile error. */
export function compilePosition(result: Extract<RunResult, { kind: 'compile-error' }>): string {
  return `line ${result.line}, column ${result.column}: ${result.message}`;
}

/** What a code check found: the message, and where when the code does not compile. */
export interface CodeProblem {
  readonly message: string;
  readonly line: number | null;
  readonly column: number | null;
}

const AT_POSITION = /line (\d+), column (\d+): (.*)$/s;

/** The message and position in the detail of a code check's problem (ending with compilePosition's text). */
export function codeProblemOf(detail: string): CodeProblem {
  const at = AT_POSITION.exec(detail);
  if (at === null) return { message: detail, line: null, column: null };
  return { message: at[3] as string, line: Number(at[1]), column: Number(at[2]) };
}

function fromReport(report: string): SandboxOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(report);
  } catch {
    return runtimeProblem('the reactor code produced an unreadable result');
  }
  if (!isPlainObject(parsed)) return runtimeProblem('the reactor code produced an unreadable result');
  switch (parsed['kind']) {
    case 'ok':
      return { kind: 'ok', output: parsed['output'] ?? null };
    case 'not-a-function':
      return { kind: 'problem', error: invalidFormula('the code must export one function') };
    case 'reactor-error': {
      const className = parsed['className'];
      const known = typeof className === 'string' && Object.hasOwn(REACTOR_ERROR_CLASSES, className);
      const name: ReactorErrorClass = known ? (className as ReactorErrorClass) : 'ReactorRuntimeError';
      // A 5xx is never shown to the caller (the HTTP edge answers it generically) but is logged:
      // what the code wrote into it may quote token data, so only the class is kept.
      const errors =
        REACTOR_ERROR_CLASSES[name].status >= 500
          ? { error: [`the reactor code threw ${name}`] }
          : checkedErrors(parsed['errors']);
      return {
        kind: 'problem',
        error: new VaultError(CLASS_CODES[name], REACTOR_ERROR_CLASSES[name].detail, { errors }),
      };
    }
    case 'custom-response': {
      const status = parsed['status'];
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
        return runtimeProblem('CustomHttpResponseError needs an integer status from 100 to 599');
      }
      return {
        kind: 'custom-response',
        status,
        headers: checkedHeaders(parsed['headers']),
        body: parsed['body'] ?? null,
      };
    }
    case 'thrown': {
      const reason = parsed['reason'];
      if (reason === 'memory') return runtimeProblem('the reactor code ran out of memory');
      if (reason === 'stack') return runtimeProblem('the reactor code exceeded the stack size limit');
      if (reason === 'unserializable')
        return runtimeProblem('the reactor result is not serializable to JSON');
      const name =
        typeof parsed['name'] === 'string' && /^[A-Z][\w$]{0,99}$/.test(parsed['name'])
          ? parsed['name']
          : 'a value';
      return runtimeProblem(`the reactor code threw ${name}`);
    }
    default:
      return runtimeProblem('the reactor code produced an unreadable result');
  }
}

/** The caller-facing outcome of one invocation. */
export function outcomeOf(result: RunResult, limits: SandboxLimits): SandboxOutcome {
  switch (result.kind) {
    case 'report':
      return fromReport(result.report);
    case 'compile-error':
      return { kind: 'problem', error: invalidFormula(compilePosition(result)) };
    case 'timeout':
      return {
        kind: 'problem',
        error: new VaultError('REACTOR_TIMEOUT', `The reactor did not finish within ${limits.timeoutMs} ms.`),
      };
    case 'out-of-memory':
      return runtimeProblem('the reactor code ran out of memory');
    case 'output-too-large':
      return runtimeProblem(`the reactor result is larger than ${limits.outputBytes} bytes`);
    case 'never-settled':
      return runtimeProblem('the promise returned by the reactor code never settles');
    case 'crashed':
      return runtimeProblem('the sandbox failed while running the reactor code');
  }
}

/**
 * The problem of a code check (create and update of a formula), or null when the code compiles,
 * its module body runs, and it exports one function.
 */
export function checkProblem(result: RunResult, limits: SandboxLimits): VaultError | null {
  switch (result.kind) {
    case 'compile-error':
      return invalidFormula(compilePosition(result));
    case 'timeout':
      return invalidFormula(`evaluating the module took longer than ${limits.timeoutMs} ms`);
    case 'report': {
      const outcome = fromReport(result.report);
      if (outcome.kind === 'ok') return null;
      if (outcome.kind === 'problem' && outcome.error.code === 'UNPROCESSABLE') return outcome.error;
      return invalidFormula('the module body threw while loading');
    }
    default:
      return invalidFormula('the module could not be loaded');
  }
}

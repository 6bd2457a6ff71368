import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type LevelWithSilent, type Logger, type LoggerOptions } from 'pino';
import { redactingObjectsOnly } from './log-redaction.ts';

/** Where and how loudly the server logs, when the caller does not hand in its own pino logger. */
export interface ServerLoggerOptions {
  /** Default `info`. */
  readonly level?: LevelWithSilent;
  /** Default stdout. Tests pass a stream to read the lines back. */
  readonly destination?: DestinationStream;
}

/** A pino logger to derive from, or options for a new one. */
export type ServerLogger = Logger | ServerLoggerOptions;

/** Headers that carry credentials. Also redacted from anything a handler logs as `headers`. */
export const SECRET_HEADERS = [
  'svc-api-key',
  'svc-proxy-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  // The console session's double-submit value: no credential alone, but bound to a live session.
  'svc-csrf',
] as const;

const REDACT_PATHS = SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `*.headers["${name}"]`]);

interface RequestLike {
  readonly method?: string;
  readonly url?: string;
}

/**
 * Query strings may carry secrets (`?svc-proxy-key=…`, search terms), so only the path is logged.
 * Bodies and headers are never part of a request log line, whatever code later logs `{ req }`.
 */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

const safeSerializers = {
  req: (req: RequestLike) => ({ method: req.method, path: pathOf(req.url) }),
};

const safety: Pick<LoggerOptions, 'redact' | 'serializers'> = {
  redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  serializers: safeSerializers,
};

/**
 * Redaction and the safe `req` serializer are applied even to a caller's logger (as a child), so no
 * caller can opt the server out of them by accident.
 */
export function createServerLogger(option: ServerLogger = {}): Logger {
  if (isLogger(option)) return redactingObjectsOnly(option.child({}, safety));
  const options: LoggerOptions = { level: option.level ?? 'info', ...safety };
  return redactingObjectsOnly(
    option.destination === undefined ? pino(options) : pino(options, option.destination),
  );
}

function isLogger(option: ServerLogger): option is Logger {
  return typeof (option as Partial<Logger>).child === 'function';
}

/** Log label of the request id, which is the SVC-TRACE-ID. */
export const TRACE_ID_LOG_LABEL = 'traceId';

/**
 * One line per request, written when the response is finished: method, path (never the query),
 * the matched route pattern, status and time. Fastify's own "incoming request" and "route not
 * found" lines are dropped because the completion line already says all of it.
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: TRACE_ID_LOG_LABEL });
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      path: pathOf(request.url),
      route: request.routeOptions?.url,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

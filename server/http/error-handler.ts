import type { FastifyReply, FastifyRequest } from 'fastify';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { VaultServer } from '../types.ts';
import { mapError } from './error-mapping.ts';
import { sendProblem } from './problem.ts';

/** Answers any failure with a problem; logs our own failures with the error, never the request body. */
export function handleError(thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { error, unexpected } = mapError(thrown);
  if (unexpected) request.log.error({ err: thrown }, 'request failed');
  if (error.code === 'RATE_LIMITED') reply.header('retry-after', String(retryAfterSeconds(error)));
  sendProblem(reply, error);
}

/** Used when a RATE_LIMITED error does not say how long to wait. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * Seconds until a throttled caller may retry, for the `Retry-After` header: the error's
 * `retryAfterSeconds` when the thrower set one, else a default.
 */
export function retryAfterSeconds(error: VaultError): number {
  const seconds = error.retryAfterSeconds;
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0
    ? Math.ceil(seconds)
    : DEFAULT_RETRY_AFTER_SECONDS;
}

export function installErrorHandling(app: VaultServer): void {
  app.setErrorHandler((thrown, request, reply) => {
    handleError(thrown, request, reply);
  });
  app.setNotFoundHandler((_request, reply) => {
    sendProblem(reply, new VaultError('NOT_FOUND', 'No route matches this method and path.'));
  });
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { VaultServer } from '../types.ts';
import { mapError } from './error-mapping.ts';
import { sendProblem } from './problem.ts';

/** Answers any failure with a problem; logs our own failures with the error, never the request body. */
export function handleError(thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { error, unexpected } = mapError(thrown);
  if (unexpected) request.log.error({ err: thrown }, 'request failed');
  sendProblem(reply, error);
}

export function installErrorHandling(app: VaultServer): void {
  app.setErrorHandler((thrown, request, reply) => {
    handleError(thrown, request, reply);
  });
  app.setNotFoundHandler((_request, reply) => {
    sendProblem(reply, new VaultError('NOT_FOUND', 'No route matches this method and path.'));
  });
}

import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { VaultHandle } from '../core/vault/types.ts';
import { installBodyParsers } from './http/body-parsers.ts';
import { handleError, installErrorHandling } from './http/error-handler.ts';
import { RequestLogController, createServerLogger, type ServerLogger } from './http/logging.ts';
import { echoTraceId, traceIdFor } from './http/trace-id.ts';
import { registerHealthRoute } from './routes/health.ts';
import { registerOpenApi } from './routes/openapi.ts';
import type { VaultServer } from './types.ts';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface ServerOptions {
  /** Largest accepted request body in bytes; larger ones get 413. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** A pino logger (the server logs through a child of it) or options for a new one. Default: info to stdout. */
  readonly logger?: ServerLogger;
  /** API version shown in /openapi.json. Default `0.0.0`; the CLI passes the package version. */
  readonly version?: string;
}

/**
 * Builds the HTTP API around an open vault. The instance is returned NOT ready: callers (tests,
 * the desktop shell) may still add routes or plugins, and those get problem responses and appear
 * in /openapi.json like built-in ones. `inject()`, `ready()` and `listen()` finish the setup.
 * The vault stays the caller's: closing the server does not close it.
 */
export async function buildServer(vault: VaultHandle, options: ServerOptions = {}): Promise<VaultServer> {
  // Typed as Fastify's base logger so the instance type does not depend on pino's generics.
  const logger: FastifyBaseLogger = createServerLogger(options.logger);
  const app: VaultServer = Fastify({
    loggerInstance: logger,
    logController: new RequestLogController(),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // The request id is the SVC-TRACE-ID; genReqId vets a client-supplied one before adopting it.
    requestIdHeader: false,
    genReqId: traceIdFor,
    // Real clients send `POST /tokens/`.
    routerOptions: { ignoreTrailingSlash: true },
    // Requests Fastify rejects before routing (bad URL encoding) still get a problem body.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
  }).withTypeProvider<TypeBoxTypeProvider>();

  echoTraceId(app);
  installBodyParsers(app);
  installErrorHandling(app);
  await registerOpenApi(app, { version: options.version ?? '0.0.0' });
  registerHealthRoute(app, vault);
  return app;
}

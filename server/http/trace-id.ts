import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Lower case because Node lower-cases incoming header names; HTTP header names are case-insensitive. */
export const TRACE_ID_HEADER = 'svc-trace-id';

/**
 * A client-chosen trace id ends up in log lines and response headers, so only a short, plain token
 * is accepted; anything else (log-injection attempts, huge values) is replaced, not echoed.
 */
const ACCEPTABLE_TRACE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function isAcceptableTraceId(value: string): boolean {
  return ACCEPTABLE_TRACE_ID.test(value);
}

/** Fastify `genReqId`: the request id is the trace id, so every log line of a request carries it. */
export function traceIdFor(req: IncomingMessage): string {
  const supplied = req.headers[TRACE_ID_HEADER];
  return typeof supplied === 'string' && isAcceptableTraceId(supplied) ? supplied : randomUUID();
}

export function echoTraceId(app: FastifyInstance): void {
  // A callback hook: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(TRACE_ID_HEADER, request.id);
    done();
  });
}

import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ErrorCode, VaultError } from '../../core/errors/catalogue.ts';
import { TRACE_ID_HEADER } from './trace-id.ts';

/**
 * Problem `type` URIs are `urn:svc-vault:problem:<code>`, the catalogue code in lower case with
 * dashes (VALIDATION_FAILED → validation-failed). A URN because the vault runs on users' machines
 * and owns no web address to dereference. One URI per catalogue code gives clients a stable
 * identifier to switch on; the same code is also sent as the extension member `code` so clients
 * need not parse the URI. Change the base here and nowhere else.
 */
export const PROBLEM_TYPE_BASE = 'urn:svc-vault:problem:';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** `$id` under which the problem schema is shared with routes and listed in OpenAPI components. */
export const PROBLEM_SCHEMA_ID = 'Problem';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'Problem type URI, one per error code.' }),
    title: Type.String({ description: 'Short summary of the problem class.' }),
    status: Type.Integer({ description: 'The HTTP status code, repeated.' }),
    detail: Type.String({ description: 'Explanation specific to this occurrence.' }),
    code: Type.String({ description: 'Stable error code from the error catalogue.' }),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), {
        description: 'Field name → messages; present on every 400.',
      }),
    ),
  },
  {
    $id: PROBLEM_SCHEMA_ID,
    description: 'RFC 7807 problem details.',
  },
);

export type Problem = Static<typeof ProblemSchema>;

export function problemType(code: ErrorCode): string {
  return PROBLEM_TYPE_BASE + code.toLowerCase().replaceAll('_', '-');
}

export function toProblem(error: VaultError): Problem {
  const problem: Problem = {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
  };
  if (error.errors !== undefined) problem.errors = error.errors;
  // Clients of this API read the `errors` map of every 400; one without field errors gets its
  // detail under `request`.
  else if (error.status === 400) problem.errors = { request: [error.detail] };
  return problem;
}

/**
 * Sends `error` as problem+json. The trace id is set here as well as in the onRequest hook because
 * framework errors (bad URL encoding) are answered before any hook runs.
 */
export function sendProblem(reply: FastifyReply, error: VaultError): FastifyReply {
  return reply
    .code(error.status)
    .header(TRACE_ID_HEADER, reply.request.id)
    .type(PROBLEM_CONTENT_TYPE)
    .send(toProblem(error));
}

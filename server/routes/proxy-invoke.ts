import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { VaultError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { mapError } from '../http/error-mapping.ts';
import { PROBLEM_SCHEMA_ID, toProblem } from '../http/problem.ts';
import { TRACE_ID_HEADER } from '../http/trace-id.ts';
import type { VaultServer } from '../types.ts';

export const PROXY_PATH = '/proxy';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Outbound failures whose detail is written for the caller (one fixed detail, or the host for a timeout). */
const DESTINATION_CODES = new Set(['DESTINATION_TIMEOUT', 'DESTINATION_UNREACHABLE']);

/**
 * A failure inside the vault, as the proxy answers it: `{ proxy_error: <problem> }` with the
 * problem's status. No SVC-PROXY-DESTINATION-STATUS header, so a caller can tell it from a
 * destination's own error.
 */
function sendProxyError(thrown: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  let error: VaultError;
  const mapped = mapError(thrown);
  if (mapped.unexpected && DESTINATION_CODES.has(mapped.error.code)) {
    error = (mapped.error.cause as VaultError | undefined) ?? mapped.error;
  } else {
    if (mapped.unexpected) request.log.error({ err: thrown }, 'proxy request failed');
    error = mapped.error;
  }
  return reply
    .code(error.status)
    .header(TRACE_ID_HEADER, request.id)
    .type('application/json')
    .send({ proxy_error: toProblem(error) });
}

/** The path after `/proxy` and the query string, both raw (still percent-encoded). */
function splitUrl(rawUrl: string): { path: string; rawQuery: string } {
  const q = rawUrl.indexOf('?');
  const pathPart = q === -1 ? rawUrl : rawUrl.slice(0, q);
  return { path: pathPart.slice(PROXY_PATH.length), rawQuery: q === -1 ? '' : rawUrl.slice(q + 1) };
}

function headerPairs(raw: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return pairs;
}

const schema = {
  summary: 'Invoke a proxy',
  description:
    'Forwards the request to a pre-configured proxy (SVC-PROXY-KEY header or svc-proxy-key query) or to ' +
    'SVC-PROXY-URL (ephemeral; a private application key), with token expressions in the body and header ' +
    'values detokenized. Any content type; the response is the destination response (with ' +
    'SVC-PROXY-DESTINATION-STATUS), or `{proxy_error}` when the vault fails.',
  tags: ['proxies'],
  response: {
    default: Type.Object(
      { proxy_error: Type.Optional(Type.Ref(PROBLEM_SCHEMA_ID)) },
      { description: 'The destination response, or a proxy_error.' },
    ),
  },
};

/**
 * `/proxy` and `/proxy/**`: any content type, the body taken raw. Authentication happens inside
 * the invoker (a proxy with `require_auth: false` needs no key), hence `access: 'public'` here.
 */
export function registerProxyInvokeRoutes(app: VaultServer, services: Services): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((thrown, request, reply) => sendProxyError(thrown, request, reply));

    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const { path, rawQuery } = splitUrl(request.raw.url ?? PROXY_PATH);
      const body = Buffer.isBuffer(request.body) ? request.body : null;
      const response = await services.proxyInvoker({
        method: request.method,
        path,
        rawQuery,
        headers: headerPairs(request.raw.rawHeaders),
        body,
        authenticate: (key) => services.auth.authenticateApiKey(key),
      });
      reply.code(response.status);
      for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
      return reply.send(response.body);
    };

    for (const url of [PROXY_PATH, `${PROXY_PATH}/*`]) {
      scope.route({ method: [...METHODS], url, config: { access: 'public' }, schema, handler });
    }
  });
}

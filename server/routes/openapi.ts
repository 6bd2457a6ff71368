import type { AddressInfo } from 'node:net';
import swagger from '@fastify/swagger';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { SECURITY_SCHEMES } from '../http/access.ts';
import { hostOf } from '../http/host-check.ts';
import { nameOperations } from '../http/operation-ids.ts';
import { PROBLEM_CONTENT_TYPE, PROBLEM_SCHEMA_ID, ProblemSchema } from '../http/problem.ts';
import { urlOf } from '../server-services.ts';
import type { VaultServer } from '../types.ts';

export interface OpenApiOptions {
  readonly version: string;
  /**
   * The server's public origin (publicUrl), when one is configured: `servers` names it for
   * requests that came to its host, since a proxy in front may speak https where this server does not.
   */
  readonly publicOrigin?: string;
}

const problemResponse = {
  description: 'Problem details (RFC 7807).',
  content: { [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref(PROBLEM_SCHEMA_ID) } },
};

/**
 * Every route can fail with a problem, so each gets 4xx/5xx problem responses unless it declares
 * its own. They are real response schemas, not only documentation: problem bodies are then
 * serialized by schema, which also drops any stray property an error might carry.
 */
function declareProblemResponses(route: RouteOptions): void {
  const schema = route.schema ?? {};
  if ((schema as { hide?: boolean }).hide === true) return;
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  route.schema = { ...schema, response: { '4xx': problemResponse, '5xx': problemResponse, ...declared } };
}

interface ParameterObject {
  in?: string;
  schema?: { type?: unknown };
  style?: string;
  explode?: boolean;
}

/**
 * An object-valued query parameter (`metadata` of GET /tokens) is sent as `metadata[key]=value`:
 * OpenAPI calls that `style: deepObject`. The generator cannot say so per parameter, so it is
 * added here, for every such parameter.
 */
export function markDeepObjectParameters<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { parameters?: unknown }>> }).paths;
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!Array.isArray(operation.parameters)) continue;
      for (const parameter of operation.parameters as ParameterObject[]) {
        if (parameter.in === 'query' && parameter.schema?.type === 'object') {
          parameter.style = 'deepObject';
          parameter.explode = true;
        }
      }
    }
  }
  return document;
}

/**
 * Registers the shared problem schema, the OpenAPI generator and `GET /openapi.json`. Must run
 * before any route is added: the generator and the problem responses hook see only later routes.
 */
export async function registerOpenApi(
  app: VaultServer,
  { version, publicOrigin }: OpenApiOptions,
): Promise<void> {
  app.addSchema(ProblemSchema);
  // Added before the generator so that it reads the routes' schemas after this hook amended them.
  app.addHook('onRoute', declareProblemResponses);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'svc vault API', version },
      components: {
        securitySchemes: {
          [SECURITY_SCHEMES.apiKey]: {
            type: 'apiKey',
            in: 'header',
            name: 'SVC-API-KEY',
            description: "An application's API key. The key fixes the tenant and the permissions.",
          },
          [SECURITY_SCHEMES.bearer]: {
            type: 'http',
            scheme: 'bearer',
            description: 'A session token from POST /auth/login. Ignored when SVC-API-KEY is sent.',
          },
          [SECURITY_SCHEMES.tenant]: {
            type: 'apiKey',
            in: 'header',
            name: 'SVC-TENANT-ID',
            description:
              'With a session token: the tenant to act in (a tenant id); the user must be a member of it.',
          },
          [SECURITY_SCHEMES.operator]: {
            type: 'apiKey',
            in: 'header',
            name: 'SVC-OPERATOR-KEY',
            description:
              "The operator credential of this server run, read from the file beside the vault's lock " +
              '(readable by its owner only). Accepted from loopback addresses only; new at every start.',
          },
          [SECURITY_SCHEMES.console]: {
            type: 'apiKey',
            in: 'cookie',
            name: 'svc_console',
            description:
              "The console's session cookie, set by POST /console/sessions and /console/sessions/login " +
              '(named `svc_console_<port>` after the port the browser used, `__Host-` prefixed over TLS; ' +
              'HttpOnly, SameSite=Strict). Read only when neither SVC-API-KEY nor Authorization is sent; ' +
              'every request with it must come from the same origin and carry SVC-CSRF (the session’s ' +
              'double-submit value), except GET /console/session, which tells it. Never accepted by /proxy.',
          },
        },
      },
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? nameOperations(markDeepObjectParameters(documentObject.openapiObject))
        : documentObject.swaggerObject,
    // Name shared schemas by their `$id` (`Problem`) rather than `def-0`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async (request) => {
    const { openapi, info, ...rest } = app.swagger() as Record<string, unknown>;
    return { openapi, info, servers: [{ url: serverUrl(request, publicOrigin) }], ...rest };
  });
}

/**
 * This server's own URL, as the caller reached it: the Host it named (the host check has already
 * refused names that are not this server's), or the public origin when that is the host named.
 */
export function serverUrl(request: FastifyRequest, publicOrigin: string | undefined): string {
  const host = request.host;
  // HTTP/1.0 sends no Host: the address the request arrived at.
  if (host === '') return urlOf(request.socket.address() as AddressInfo);
  if (publicOrigin !== undefined && hostOf(host) === hostOf(new URL(publicOrigin).host)) return publicOrigin;
  return `${request.protocol}://${host}`;
}

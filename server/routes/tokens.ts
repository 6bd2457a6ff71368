import { Type } from 'typebox';
import { validationError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { TokenSchema } from '../../core/tokens/index.ts';
import { principalOf, ViewHeaders } from '../http/access.ts';
import {
  installMergePatchParser,
  MERGE_PATCH_CONTENT_TYPE,
  requireMergePatch,
} from '../http/body-parsers.ts';
import { pageFromBody, paginate, paginated } from '../http/pagination.ts';
import type { VaultServer } from '../types.ts';
import { CreateBody, SearchBody, UpdateBody, createRequest } from './token-bodies.ts';
import { byId, checkId, TokenIdParams, tokenLocation } from './token-ids.ts';
import { ListQuery, readListQuery, tokenFilter } from './tokens-list-query.ts';

/**
 * The tokens feature over HTTP: tokenize, and the tokens' create, read, list, search, update and
 * delete. Routes check only the coarse permission (`config.access`); which containers the caller
 * may touch, and how token data is shown to it (reveal, mask, redact), is decided in core per
 * token.
 *
 * Token data is never logged here and never put in an error: the request log carries method, path
 * and status only, and every message below names fields, not values.
 */

const tags = ['tokens'];
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function registerTokenRoutes(app: VaultServer, services: Services): void {
  // One plugin scope for the token routes: responses may carry token data, so none is cached; the
  // merge-patch parser lives in a child scope of its own, so only PATCH accepts that type.
  app.register(async (scope) => {
    scope.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    registerCreateRoutes(scope, services);
    registerReadRoutes(scope, services);
    registerDeleteRoute(scope, services);
    await scope.register(async (patchScope) => {
      installMergePatchParser(patchScope);
      registerUpdateRoute(patchScope, services);
    });
  });
}

/** POST /tokenize and POST /tokens. */
function registerCreateRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/tokenize',
    {
      config: { access: { permission: 'token:create' } },
      schema: {
        summary: 'Tokenize a payload',
        description:
          'Walks any JSON: an object with `type` and `data` is a token definition (the fields of ' +
          'POST /tokens) and is replaced by the created token (data through the caller’s token:create ' +
          'transform: masked unless a rule reveals); any other primitive becomes a ' +
          '`token` token and is replaced by its id; other objects and arrays are walked. All or ' +
          'nothing: one invalid definition fails the request and creates no token. Needs ' +
          '`token:create` on every container written to.',
        tags,
        headers: ViewHeaders,
        body: Type.Unknown({ description: 'Any JSON value.' }),
        response: { 200: Type.Unknown({ description: 'The request with each value replaced.' }) },
      },
    },
    async (request, reply) => {
      if (request.body === undefined) throw validationError({ body: ['is required'] });
      const result = await services.tokens.tokenize(principalOf(request), request.body);
      // Serialized here: Fastify would send a bare string result (a tokenized primitive) as text.
      return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(result ?? null));
    },
  );

  app.post(
    '/tokens',
    {
      config: { access: { permission: 'token:create' } },
      schema: {
        summary: 'Create a token',
        description:
          'Returns the token with its data through the caller’s token:create transform (masked unless ' +
          'a rule of the caller reveals for token:create). 201 with a Location header for a new token. ' +
          'With deduplication (the request’s `deduplicate_token`, else the tenant setting ' +
          '`deduplicate_tokens`) a token whose fingerprint matches an existing one is not created: ' +
          'the existing token is returned with 200 instead (redacted to id, type, tenant_id, ' +
          'fingerprint and containers when the caller may not read it). Public applications do not ' +
          'deduplicate: `deduplicate_token: true` from one is a 403. A taken id is a 409.',
        tags,
        headers: ViewHeaders,
        body: CreateBody,
        response: {
          201: { ...TokenSchema, description: 'Created.' },
          200: { ...TokenSchema, description: 'Deduplicated: the existing token.' },
        },
      },
    },
    async (request, reply) => {
      const { token, created } = await services.tokens.create(
        principalOf(request),
        createRequest(request.body),
      );
      if (!created) return reply.code(200).send(token);
      return reply.code(201).header('location', tokenLocation(token.id)).send(token);
    },
  );
}

/** GET /tokens, POST /tokens/search and GET /tokens/{id}. */
function registerReadRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/tokens',
    {
      config: { access: { permission: 'token:read' } },
      preValidation: readListQuery,
      schema: {
        summary: 'List tokens',
        description:
          'Tokens of containers the caller may read, each shown through its transform. Metadata ' +
          'filters: `metadata.<key>=<value>`, `metadata[<key>]=<value>` or ' +
          '`metadata={"<key>":"<value>"}`. A type no token has gives an empty page. `size=0` ' +
          'answers only the totals.',
        tags,
        headers: ViewHeaders,
        querystring: ListQuery,
        response: { 200: paginated(TokenSchema) },
      },
    },
    async (request) => {
      const { page, size } = request.query;
      const result = await services.tokens.list(principalOf(request), tokenFilter(request.query), {
        page,
        size,
      });
      return paginate(result.items, result.total, page, size);
    },
  );

  // A static path: the router prefers it to `/tokens/:id`, which has no POST anyway.
  app.post(
    '/tokens/search',
    {
      config: { access: { permission: 'token:search' } },
      schema: {
        summary: 'Search tokens',
        description:
          'Tokens matching a query, of containers the caller may search, each shown through its ' +
          'transform. `data:` matches search indexes (keyed blind indexes), never decrypted data; ' +
          'it needs the reveal transform for token:search on every container the caller may search ' +
          '(403 otherwise), and a query holds at most 3 `data:` terms. An invalid query is a 400 ' +
          'naming the position.',
        tags,
        headers: ViewHeaders,
        body: SearchBody,
        response: { 200: paginated(TokenSchema) },
      },
    },
    async (request) => {
      const { query } = request.body;
      const { page, size } = pageFromBody(request.body);
      const result = await services.tokens.search(principalOf(request), { query, page, size });
      return paginate(result.items, result.total, page, size);
    },
  );

  app.get(
    '/tokens/:id',
    {
      config: { access: { permission: 'token:read' } },
      preValidation: checkId,
      schema: {
        summary: 'Get a token',
        description:
          'Data shown through the caller’s transform for the token’s container. A token outside ' +
          'the containers the caller may read is a 404, like a missing one.',
        tags,
        headers: ViewHeaders,
        params: TokenIdParams,
        response: { 200: TokenSchema },
      },
    },
    async (request) => byId(services.tokens.get(principalOf(request), request.params.id)),
  );
}

/** DELETE /tokens/{id}. */
function registerDeleteRoute(app: VaultServer, services: Services): void {
  app.delete(
    '/tokens/:id',
    {
      config: { access: { permission: 'token:delete' } },
      preValidation: checkId,
      schema: {
        summary: 'Delete a token',
        description: 'Its data is gone for good; an audit record remains.',
        tags,
        params: TokenIdParams,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.tokens.delete(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
}

/** PATCH /tokens/{id} (merge patches only: its scope has the parser). */
function registerUpdateRoute(app: VaultServer, services: Services): void {
  app.patch(
    '/tokens/:id',
    {
      config: { access: { permission: 'token:update' } },
      preParsing: requireMergePatch,
      preValidation: checkId,
      schema: {
        summary: 'Update a token',
        description:
          `Takes \`Content-Type: ${MERGE_PATCH_CONTENT_TYPE}\` only (any other type is a 415). ` +
          'Returns the token with its data shown through the stricter of the token:update and ' +
          'token:read transforms. Changing `mask`, `fingerprint_expression` or `search_indexes`, or ' +
          'moving the token, needs token:read with the reveal transform on its container (and the ' +
          'target one), else 403; moving also needs `token:update` on both. A token the caller may ' +
          'not read is a 404.',
        tags,
        headers: ViewHeaders,
        consumes: [MERGE_PATCH_CONTENT_TYPE],
        params: TokenIdParams,
        body: UpdateBody,
        response: { 200: TokenSchema },
      },
    },
    async (request) => byId(services.tokens.update(principalOf(request), request.params.id, request.body)),
  );
}

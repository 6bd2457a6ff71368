import type { preValidationAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { principalOf, ViewHeaders } from '../http/access.ts';
import { paginate, paginated } from '../http/pagination.ts';
import type { VaultServer } from '../types.ts';
import { TOKEN_ID_MAX_LENGTH, TokenSchema } from '../../core/tokens/index.ts';
import { CreateBody, createRequest } from './token-bodies.ts';
import { tokenLocation } from './token-ids.ts';
import { ListQuery, readListQuery, tokenFilter } from './tokens-list-query.ts';

/**
 * Token associations over HTTP: parent/child links between tokens (core/tokens/associations.ts
 * has the rules). Routes check the coarse permissions; which tokens the caller may link, unlink
 * or see is decided in core per container. Responses may carry token data, so none is cached.
 */

const TokenIdParam = (description: string) =>
  Type.String({ minLength: 1, maxLength: TOKEN_ID_MAX_LENGTH, description });

const ParentParams = Type.Object({
  parentId: TokenIdParam('Id of the parent token, URL-encoded.'),
});

const LinkParams = Type.Object({
  parentId: TokenIdParam('Id of the parent token, URL-encoded.'),
  childId: TokenIdParam('Id of the child token, URL-encoded.'),
});

/** A path id longer than any token id names nothing: 404 like an unknown id, not 400. */
const checkIds: preValidationAsyncHookHandler = async (request) => {
  for (const id of Object.values(request.params as Record<string, string | undefined>)) {
    if (id === undefined || id.length === 0 || Array.from(id).length > TOKEN_ID_MAX_LENGTH) {
      throw new VaultError('NOT_FOUND', 'Not found.');
    }
  }
};

const tags = ['tokens'];

export function registerTokenAssociationRoutes(app: VaultServer, services: Services): void {
  app.register(async (scope) => {
    scope.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    registerRoutes(scope, services);
  });
}

function registerRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/tokens/:parentId/children/:childId',
    {
      config: { access: { permission: 'token:read' } },
      preValidation: checkIds,
      schema: {
        summary: 'Associate a child token with a parent token',
        description:
          'Links two tokens of the tenant as parent and child. Needs `token:read` on the containers ' +
          'of both. The reverse link is a separate association; a token cannot be its own child (400). ' +
          'An existing link is a 409. A link lasts as long as both tokens.',
        tags,
        params: LinkParams,
        response: { 204: Type.Null({ description: 'Associated.' }) },
      },
    },
    async (request, reply) => {
      const { parentId, childId } = request.params;
      await services.tokenAssociations.associate(principalOf(request), parentId, childId);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/tokens/:parentId/children/:childId',
    {
      config: { access: { permission: 'token:delete' } },
      preValidation: checkIds,
      schema: {
        summary: 'Dissociate a child token from a parent token',
        description:
          'Removes the link; both tokens stay. Needs `token:delete` on the containers of both. A ' +
          'missing link is a 404.',
        tags,
        params: LinkParams,
        response: { 204: Type.Null({ description: 'Dissociated.' }) },
      },
    },
    async (request, reply) => {
      const { parentId, childId } = request.params;
      await services.tokenAssociations.dissociate(principalOf(request), parentId, childId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/tokens/:parentId/children',
    {
      config: { access: { permission: ['token:read', 'token:create'] } },
      preValidation: checkIds,
      schema: {
        summary: 'Create a child token',
        description:
          'Creates a token exactly as POST /tokens does (same body, same transform of the response) ' +
          'and links it as a child of the parent, in one step: a missing parent creates nothing. ' +
          'Needs `token:create` where the child goes and `token:read` on the parent. A deduplicated ' +
          'child (200) is the existing token, linked as it is.',
        tags,
        headers: ViewHeaders,
        params: ParentParams,
        body: CreateBody,
        response: {
          201: { ...TokenSchema, description: 'Created and associated.' },
          200: { ...TokenSchema, description: 'Deduplicated: the existing token, associated.' },
        },
      },
    },
    async (request, reply) => {
      const { token, created } = await services.tokenAssociations.createChild(
        principalOf(request),
        request.params.parentId,
        createRequest(request.body),
      );
      if (!created) return reply.code(200).send(token);
      return reply.code(201).header('location', tokenLocation(token.id)).send(token);
    },
  );

  app.get(
    '/tokens/:parentId/children',
    {
      config: { access: { permission: 'token:read' } },
      preValidation: [checkIds, readListQuery],
      schema: {
        summary: 'List the child tokens of a token',
        description:
          'Needs `token:read` on the parent. Lists the children the caller may read, each through ' +
          'its transform, filtered and paged exactly like GET /tokens (`id`, `type`, metadata in ' +
          'its three forms, `page`, `size`).',
        tags,
        headers: ViewHeaders,
        params: ParentParams,
        querystring: ListQuery,
        response: { 200: paginated(TokenSchema) },
      },
    },
    async (request) => {
      const { page, size } = request.query;
      const result = await services.tokenAssociations.children(
        principalOf(request),
        request.params.parentId,
        tokenFilter(request.query),
        { page, size },
      );
      return paginate(result.items, result.total, page, size);
    },
  );
}

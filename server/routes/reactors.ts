import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Reactor } from '../../core/reactors/contract.ts';
import type { Services } from '../../core/services-contract.ts';
import { NAME_MAX } from '../../core/validation/fields.ts';
import { principalOf } from '../http/access.ts';
import { idParams, notFoundAs, uuidPathParams } from '../http/ids.ts';
import { paginate, paginated } from '../http/pagination.ts';
import { Nullable, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';
import { ApplicationSchema, applicationBody } from './applications.ts';
import { NameListQuery, ReactorFormulaSchema, formulaBody } from './reactor-formulas.ts';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const ConfigurationSchema = Type.Record(
  Type.String(),
  Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
  {
    description: "Values for the formula's configuration contract (every declared setting is required).",
  },
);

export const ReactorSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    tenant_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    formula: ReactorFormulaSchema,
    configuration: ConfigurationSchema,
    application: Type.Optional(ApplicationSchema),
    ...ChangeStamps,
  },
  {
    description:
      'A reactor: a configured instance of a formula, with the whole formula and application embedded.',
  },
);

const Reference = Type.Object(
  { id: Type.String({ maxLength: 36 }) },
  { description: '`{ id }`; a whole object carrying its id is accepted too.' },
);

const CreateBody = Type.Object({
  name: Type.String({ maxLength: NAME_MAX }),
  configuration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  formula: Reference,
  application: Type.Optional(Nullable(Reference)),
});

const UpdateBody = Type.Object(
  {
    name: Type.String({ maxLength: NAME_MAX }),
    configuration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    application: Type.Optional(Nullable(Reference)),
  },
  { description: 'Full replacement; the formula does not change.' },
);

const ReactBody = Type.Object({
  args: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'Arguments; `{{ <token id> | filters }}` expressions are detokenized first (token:use).',
    }),
  ),
});

const ReactResponse = Type.Object({
  raw: Type.Optional(Type.Unknown({ description: 'What the code returned as raw.' })),
  tokens: Type.Optional(Type.Unknown({ description: "The code's tokenize output, tokenized." })),
});

type ReactorJson = Static<typeof ReactorSchema>;

export function reactorBody(reactor: Reactor): ReactorJson {
  return {
    id: reactor.id,
    tenant_id: reactor.tenant_id,
    name: reactor.name,
    formula: formulaBody(reactor.formula),
    configuration: { ...reactor.configuration },
    ...(reactor.application === null ? {} : { application: applicationBody(reactor.application) }),
    created_by: reactor.created_by,
    created_at: reactor.created_at,
    modified_by: reactor.modified_by,
    modified_at: reactor.modified_at,
  };
}

const NO_SUCH_REACTOR = 'No such reactor.';
const checkId = uuidPathParams(NO_SUCH_REACTOR);
const Params = idParams('Reactor id (UUID).');

const byId = notFoundAs(NO_SUCH_REACTOR);

const tags = ['reactors'];

export function registerReactorRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/reactors',
    {
      config: { access: { permission: 'reactor:create' } },
      schema: {
        summary: 'Create a reactor',
        description:
          "The reactor's code runs as its application, so naming one needs at least that application's " +
          'token access (403).',
        tags,
        body: CreateBody,
        response: { 201: ReactorSchema },
      },
    },
    async (request, reply) => {
      const created = await services.reactors.create(principalOf(request), request.body);
      return reply.code(201).send(reactorBody(created));
    },
  );

  app.get(
    '/reactors',
    {
      config: { access: { permission: 'reactor:read' } },
      schema: {
        summary: 'List reactors',
        tags,
        querystring: NameListQuery,
        response: { 200: paginated(ReactorSchema) },
      },
    },
    async (request) => {
      const { page, size, id, name } = request.query;
      const result = await services.reactors.list(principalOf(request), { ids: id, name }, { page, size });
      return paginate(result.items.map(reactorBody), result.total, page, size);
    },
  );

  app.get(
    '/reactors/:id',
    {
      config: { access: { permission: 'reactor:read' } },
      preValidation: checkId,
      schema: { summary: 'Get a reactor', tags, params: Params, response: { 200: ReactorSchema } },
    },
    async (request) =>
      reactorBody(await byId(services.reactors.get(principalOf(request), request.params.id))),
  );

  app.put(
    '/reactors/:id',
    {
      config: { access: { permission: 'reactor:update' } },
      preValidation: checkId,
      schema: {
        summary: 'Update a reactor',
        description:
          "A reactor that has an application afterwards may be changed only by a caller holding at least that application's token access (403).",
        tags,
        params: Params,
        body: UpdateBody,
        response: { 200: ReactorSchema },
      },
    },
    async (request) =>
      reactorBody(
        await byId(services.reactors.update(principalOf(request), request.params.id, request.body)),
      ),
  );

  app.delete(
    '/reactors/:id',
    {
      config: { access: { permission: 'reactor:delete' } },
      preValidation: checkId,
      schema: {
        summary: 'Delete a reactor',
        tags,
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.reactors.delete(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/reactors/:id/react',
    {
      config: { access: { permission: 'token:use' } },
      preValidation: checkId,
      schema: {
        summary: 'Invoke a reactor',
        description:
          'Detokenizes `args` (token:use on each token container), checks them against the formula ' +
          'request parameters, runs the code in the sandbox and tokenizes its `tokenize` output as ' +
          'the reactor application. Errors thrown by the code map to problems; a ' +
          'CustomHttpResponseError answers its own status, headers and body; a timeout is 408.',
        tags,
        params: Params,
        body: ReactBody,
        response: { 200: ReactResponse },
      },
    },
    async (request, typedReply) => {
      const result = await byId(
        services.reactors.react(principalOf(request), request.params.id, request.body.args),
      );
      // Sent pre-serialized: the 200 schema would strip a custom body, and a custom status is any.
      const reply = typedReply as unknown as FastifyReply;
      reply.header('cache-control', 'no-store');
      if (result.kind === 'response') return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(result.body));
      reply.code(result.status).headers(result.headers);
      const typed = Object.keys(result.headers).some((name) => name.toLowerCase() === 'content-type');
      if (typed && typeof result.body === 'string') return reply.send(result.body);
      if (!typed) reply.type(JSON_CONTENT_TYPE);
      return reply.send(JSON.stringify(result.body ?? null));
    },
  );
}

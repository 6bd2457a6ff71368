import { MAX_PROXY_PAGE_SIZE } from '../../core/proxies/proxy-service.ts';
import { Type, type Static } from 'typebox';
import { DESTINATION_URL_MAX } from '../../core/outbound/index.ts';
import { TRANSFORM_CODE_MAX, type Proxy, type ProxyInput } from '../../core/proxies/index.ts';
import type { Services } from '../../core/services-contract.ts';
import { principalOf } from '../http/access.ts';
import { idParams, notFoundAs, uuidPathParams, uuidSchema } from '../http/ids.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { Nullable, NullableInput, StringMap, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const NAME_MAX = 200;

const TransformInput = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: TRANSFORM_CODE_MAX, description: 'CommonJS module code.' }),
  },
  { additionalProperties: false },
);

const TransformResponse = Type.Object({ code: Type.String() });

export const ProxySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.String({ description: 'Vault-generated key that invokes this proxy (SVC-PROXY-KEY).' }),
    tenant_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    destination_url: Type.String(),
    // Left out when there is none: the API this one follows declares transforms as objects, never
    // null, and strictly generated clients refuse a null.
    request_transform: Type.Optional(TransformResponse),
    response_transform: Type.Optional(TransformResponse),
    application_id: Nullable(Type.String({ format: 'uuid' })),
    configuration: StringMap(),
    require_auth: Type.Boolean(),
    ...ChangeStamps,
  },
  { description: 'A pre-configured proxy.' },
);

const ProxyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    destination_url: Type.String({
      maxLength: DESTINATION_URL_MAX,
      description: 'https:// URL with a DNS host name; the path after /proxy and the query are appended.',
    }),
    request_transform: Type.Optional(NullableInput(TransformInput)),
    response_transform: Type.Optional(NullableInput(TransformInput)),
    application: Type.Optional(
      NullableInput(
        Type.Object({ id: uuidSchema('Public or private application id') }, { additionalProperties: false }),
      ),
    ),
    configuration: Type.Optional(NullableInput(StringMap({ maxProperties: 25 }))),
    require_auth: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_PROXY_PAGE_SIZE }).properties,
  id: Type.Optional(
    Type.Array(uuidSchema('Proxy id'), {
      maxItems: 100,
      description: 'Only these proxies; repeat for several.',
    }),
  ),
  name: Type.Optional(
    Type.String({
      maxLength: NAME_MAX,
      description:
        'Name filter: `*` matches any characters; without `*`, names containing the text (case-insensitive).',
    }),
  ),
});

const Params = idParams('Proxy id (UUID).');
const NO_SUCH_PROXY = 'No such proxy.';
const checkId = uuidPathParams(NO_SUCH_PROXY);

const byId = notFoundAs(NO_SUCH_PROXY);

type ProxyJson = Static<typeof ProxySchema>;

function proxyBody(proxy: Proxy): ProxyJson {
  return {
    id: proxy.id,
    key: proxy.key,
    tenant_id: proxy.tenant_id,
    name: proxy.name,
    destination_url: proxy.destination_url,
    ...(proxy.request_transform === null
      ? {}
      : { request_transform: { code: proxy.request_transform.code } }),
    ...(proxy.response_transform === null
      ? {}
      : { response_transform: { code: proxy.response_transform.code } }),
    application_id: proxy.application_id,
    configuration: { ...proxy.configuration },
    require_auth: proxy.require_auth,
    created_by: proxy.created_by,
    created_at: proxy.created_at,
    modified_by: proxy.modified_by,
    modified_at: proxy.modified_at,
  };
}

function inputOf(body: Static<typeof ProxyBody>): ProxyInput {
  return {
    name: body.name,
    destination_url: body.destination_url,
    request_transform: body.request_transform ?? null,
    response_transform: body.response_transform ?? null,
    application: body.application ?? null,
    configuration: body.configuration ?? null,
    require_auth: body.require_auth ?? true,
  };
}

const tags = ['proxies'];

export function registerProxyRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/proxies',
    {
      config: { access: { permission: 'proxy:create' } },
      schema: {
        summary: 'Create a proxy',
        description:
          'The vault generates the proxy key. Transform code is compiled on save (422 on errors). The proxy ' +
          "runs as its application, so naming one needs at least that application's token access (403).",
        tags,
        body: ProxyBody,
        response: { 201: ProxySchema },
      },
    },
    async (request, reply) => {
      const created = await services.proxies.create(principalOf(request), inputOf(request.body));
      return reply.code(201).send(proxyBody(created));
    },
  );

  app.get(
    '/proxies',
    {
      config: { access: { permission: 'proxy:read' } },
      schema: {
        summary: 'List proxies',
        tags,
        querystring: ListQuery,
        response: { 200: paginated(ProxySchema) },
      },
    },
    async (request) => {
      const { page, size, id, name } = request.query;
      const result = await services.proxies.list(principalOf(request), { ids: id, name }, { page, size });
      return paginate(result.items.map(proxyBody), result.total, page, size);
    },
  );

  app.get(
    '/proxies/:id',
    {
      config: { access: { permission: 'proxy:read' } },
      preValidation: checkId,
      schema: { summary: 'Get a proxy', tags, params: Params, response: { 200: ProxySchema } },
    },
    async (request) => proxyBody(await byId(services.proxies.get(principalOf(request), request.params.id))),
  );

  app.put(
    '/proxies/:id',
    {
      config: { access: { permission: 'proxy:update' } },
      preValidation: checkId,
      schema: {
        summary: 'Update a proxy',
        description:
          'Replaces every field; the id and key never change. A proxy that has an application afterwards ' +
          "may be changed only by a caller holding at least that application's token access (403).",
        tags,
        params: Params,
        body: ProxyBody,
        response: { 200: ProxySchema },
      },
    },
    async (request) =>
      proxyBody(
        await byId(services.proxies.update(principalOf(request), request.params.id, inputOf(request.body))),
      ),
  );

  app.delete(
    '/proxies/:id',
    {
      config: { access: { permission: 'proxy:delete' } },
      preValidation: checkId,
      schema: {
        summary: 'Delete a proxy',
        description: 'Its key stops working at once.',
        tags,
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.proxies.delete(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
}

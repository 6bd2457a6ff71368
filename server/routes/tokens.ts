import type { FastifyRequest, preValidationAsyncHookHandler, preValidationHookHandler } from 'fastify';
import { Type, type Static } from 'typebox';
import { VaultError, validationError, type FieldErrors } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import type { CreateTokenRequest, TokenFilter, TokenView } from '../../core/tokens/contract.ts';
import { MAX_FINGERPRINT_EXPRESSION_LENGTH, MAX_SEARCH_INDEXES } from '../../core/expressions/index.ts';
import {
  CLASSIFICATION_MAX_LENGTH,
  IMPACT_LEVELS,
  MAX_FILTER_IDS,
  MAX_FILTER_METADATA,
  MAX_FILTER_TYPES,
  MAX_QUERY_LENGTH,
  MAX_TOKEN_PAGE_SIZE,
  METADATA_KEY_MAX_LENGTH,
  METADATA_VALUE_MAX_LENGTH,
  RESTRICTION_POLICIES,
  TOKEN_ID_MAX_LENGTH,
} from '../../core/tokens/index.ts';
import { principalOf, ViewHeaders } from '../http/access.ts';
import { notFoundAs } from '../http/ids.ts';
import {
  installMergePatchParser,
  MERGE_PATCH_CONTENT_TYPE,
  requireMergePatch,
} from '../http/body-parsers.ts';
import { pageBody, pageFromBody, pageQuery, paginate, paginated } from '../http/pagination.ts';
import { queryPairs } from '../http/raw-query.ts';
import { Nullable, NullableInput, StringEnum, StringMap, Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

/**
 * The tokens feature over HTTP: tokenize, and the tokens' create, read, list, search, update and
 * delete. Routes check only the coarse permission (`config.access`); which containers the caller
 * may touch, and how token data is shown to it (reveal, mask, redact), is decided in core per
 * token.
 *
 * Token data is never logged here and never put in an error: the request log carries method, path
 * and status only, and every message below names fields, not values.
 */

const DATA_DESCRIPTION =
  'Token data, any JSON. Shown through the transform of the caller’s access rules: in plaintext ' +
  '(reveal), as the evaluated mask (mask; absent when the token has no mask) or not at all (redact). ' +
  'Reads use the token:read transform, search the token:search one. Create and tokenize responses use ' +
  'the token:create transform; update responses the stricter of the token:update and token:read ' +
  'transforms (no data without token:read). A plain permission without a rule masks, so these ' +
  'responses are masked unless a rule of the caller reveals for the operation.';

const PrivacySchema = Type.Object(
  {
    classification: Nullable(
      Type.String({ maxLength: CLASSIFICATION_MAX_LENGTH, description: 'First segment of the container.' }),
    ),
    impact_level: Nullable(StringEnum(IMPACT_LEVELS, { description: 'Second segment of the container.' })),
    restriction_policy: StringEnum(RESTRICTION_POLICIES, { description: 'Always mask.' }),
  },
  {
    description:
      'The older classification of the token, read off its container `/<classification>/<impact_level>/` ' +
      '(null where the container has another shape). Not stored: change `containers` to change it.',
  },
);

const PrivacyInput = Type.Object(
  {
    classification: Type.Optional(NullableInput(Type.String({ maxLength: CLASSIFICATION_MAX_LENGTH }))),
    impact_level: Type.Optional(NullableInput(StringEnum(IMPACT_LEVELS))),
    restriction_policy: Type.Optional(NullableInput(StringEnum(RESTRICTION_POLICIES))),
  },
  {
    additionalProperties: false,
    description:
      'The older way to choose a container: classification and impact level name ' +
      '`/<classification>/<impact_level>/` (a missing one from the type’s default container). With ' +
      '`containers` as well, every field given must agree with the container (else 400). ' +
      '`restriction_policy` may only be `mask`.',
  },
);

/** A token as every token endpoint returns it (core's TokenView). */
export const TokenSchema = Type.Object(
  {
    id: Type.String({ maxLength: TOKEN_ID_MAX_LENGTH }),
    tenant_id: Type.String({ format: 'uuid' }),
    type: Type.String({ description: 'Token type: token, card, bank, card_number, …' }),
    data: Type.Optional(Type.Unknown({ description: DATA_DESCRIPTION })),
    mask: Type.Optional(
      Type.Unknown({ description: 'The mask expression (a string, or an object/array of them).' }),
    ),
    fingerprint: Type.Optional(
      Type.String({
        description: 'Identifies the contents (keyed hash, base58); equal data → equal fingerprint.',
      }),
    ),
    fingerprint_expression: Type.Optional(Type.String()),
    containers: Type.Array(Type.String(), { maxItems: 1, description: 'The one container of the token.' }),
    privacy: Type.Optional(PrivacySchema),
    metadata: Type.Optional(
      StringMap({ description: 'Non-sensitive data only: it is stored in plaintext.' }),
    ),
    search_indexes: Type.Optional(Type.Array(Type.String())),
    // Optional below because a deduplicated token the caller may not read shows only id, type,
    // tenant_id, fingerprint and containers.
    created_by: Type.Optional(Nullable(Type.String())),
    created_at: Type.Optional(Timestamp),
    modified_by: Type.Optional(Nullable(Type.String())),
    modified_at: Type.Optional(Nullable(Timestamp)),
    expires_at: Type.Optional(Nullable(Timestamp)),
  },
  { description: 'A token.' },
);

type TokenBody = Static<typeof TokenSchema>;

const ContainersInput = Type.Array(Type.String({ maxLength: 500 }), {
  maxItems: 1,
  description: "The token's container, a path like /pci/high/ (one only). Default: the type's.",
});

const MetadataInput = StringMap({
  description: `Non-sensitive string pairs (keys up to ${METADATA_KEY_MAX_LENGTH}, values up to ${METADATA_VALUE_MAX_LENGTH} characters).`,
  maxValueLength: METADATA_VALUE_MAX_LENGTH,
});

const SearchIndexesInput = Type.Array(Type.String(), {
  maxItems: MAX_SEARCH_INDEXES,
  description: 'Expressions whose values the token can be searched by (`data:<value>`).',
});

const FingerprintExpressionInput = Type.String({
  maxLength: MAX_FINGERPRINT_EXPRESSION_LENGTH,
  description: 'Expression over `data` and `metadata` whose value is fingerprinted. Default: the type’s.',
});

const ExpiresAtInput = Type.String({
  maxLength: 64,
  description:
    'When the token expires: a date-time with offset, a date-time without offset (UTC), or a short ' +
    'date M/D/YYYY (midnight UTC). Returned as ISO 8601.',
});

/** `null` is accepted wherever the API declares a field nullable; it means "not given". */
export const CreateBody = Type.Object(
  {
    id: Type.Optional(
      NullableInput(
        Type.String({
          description:
            'A 3–400 character id, or an alias expression such as `{{ data | alias_preserve_format }}`. ' +
            'An alias may share at most 4 consecutive letters or digits with the data (else 400). Default: a UUID.',
        }),
      ),
    ),
    type: Type.Optional(NullableInput(Type.String({ maxLength: 50, description: 'Default `token`.' }))),
    data: Type.Unknown({ description: 'The sensitive data, any JSON.' }),
    mask: Type.Optional(Type.Unknown({ description: 'Mask expression(s). Default: the type’s.' })),
    containers: Type.Optional(NullableInput(ContainersInput)),
    privacy: Type.Optional(NullableInput(PrivacyInput)),
    metadata: Type.Optional(NullableInput(MetadataInput)),
    search_indexes: Type.Optional(NullableInput(SearchIndexesInput)),
    fingerprint_expression: Type.Optional(NullableInput(FingerprintExpressionInput)),
    deduplicate_token: Type.Optional(
      NullableInput(Type.Boolean({ description: 'Return an existing token with the same fingerprint.' })),
    ),
    expires_at: Type.Optional(NullableInput(ExpiresAtInput)),
  },
  { description: 'Unknown fields are ignored.' },
);

const UpdateBody = Type.Object(
  {
    // Declared so that a patch naming them reaches core, which refuses a change (400) and accepts
    // the current value repeated.
    id: Type.Optional(Type.Unknown({ description: 'Cannot be changed; may repeat the current id.' })),
    type: Type.Optional(Type.Unknown({ description: 'Cannot be changed; may repeat the current type.' })),
    data: Type.Optional(Type.Unknown({ description: 'Merge patch (RFC 7386): `null` members remove.' })),
    mask: Type.Optional(Type.Unknown({ description: 'Merge patch.' })),
    metadata: Type.Optional(
      NullableInput(
        Type.Unsafe<Record<string, string | null>>({
          type: 'object',
          // A type list, not anyOf, so that AJV's coercion leaves `null` alone (see NullableInput).
          additionalProperties: { type: ['string', 'null'], maxLength: METADATA_VALUE_MAX_LENGTH },
          description: 'Merge patch: a `null` value removes the key.',
        }),
      ),
    ),
    containers: Type.Optional(NullableInput(ContainersInput)),
    search_indexes: Type.Optional(NullableInput(SearchIndexesInput)),
    fingerprint_expression: Type.Optional(NullableInput(FingerprintExpressionInput)),
    deduplicate_token: Type.Optional(NullableInput(Type.Boolean())),
    expires_at: Type.Optional(NullableInput(ExpiresAtInput)),
  },
  {
    description:
      'A JSON merge patch: `data`, `mask` and `metadata` are merged, the other fields replaced; ' +
      '`null` removes. Unknown fields are ignored.',
  },
);

const SearchBody = Type.Object(
  {
    query: Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description:
        'Lucene-style query over id, type, data (search indexes), fingerprint, container, ' +
        'metadata.<key>, created_by/at, modified_by/at; AND, OR, NOT, parentheses.',
    }),
    ...pageBody({ maxSize: MAX_TOKEN_PAGE_SIZE }).properties,
  },
  { description: 'Unknown fields are ignored; `null` page or size means not given.' },
);

export const ListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_TOKEN_PAGE_SIZE }).properties,
  id: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: TOKEN_ID_MAX_LENGTH }), {
      maxItems: MAX_FILTER_IDS,
      description: 'Only these tokens; repeat the parameter for several (`?id=a&id=b`).',
    }),
  ),
  type: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
      maxItems: MAX_FILTER_TYPES,
      description: 'Only tokens of these types; repeatable.',
    }),
  ),
  metadata: Type.Optional(
    StringMap({
      description:
        'Only tokens whose metadata has these values, as `metadata.<key>=<value>`, ' +
        '`metadata[<key>]=<value>` or one `metadata` parameter holding a JSON object of strings ' +
        '(`metadata={"<key>":"<value>"}`): case-insensitive exact matches, several keys ANDed, a ' +
        `repeated key ignored after its first value. Up to ${MAX_FILTER_METADATA} keys.`,
      maxProperties: MAX_FILTER_METADATA,
      maxValueLength: METADATA_VALUE_MAX_LENGTH,
    }),
  ),
});

export type ListQueryValue = Static<typeof ListQuery>;

export const TokenIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: TOKEN_ID_MAX_LENGTH,
    description: 'Token id, URL-encoded (ids may hold spaces and other characters).',
  }),
});

const NO_SUCH_TOKEN = 'No such token.';

/** A token read or change whose NOT_FOUND answers one detail, whatever the cause. */
export const byId = notFoundAs(NO_SUCH_TOKEN);

/**
 * A path id longer than any token id names nothing: 404 like an unknown id, not 400. A callback
 * hook (no promise per request); code points are counted only when the UTF-16 length could exceed.
 */
export const checkId: preValidationHookHandler = (request, _reply, done) => {
  const { id } = request.params as { id?: string };
  const tooLong =
    id !== undefined && id.length > TOKEN_ID_MAX_LENGTH && Array.from(id).length > TOKEN_ID_MAX_LENGTH;
  done(
    id === undefined || id.length === 0 || tooLong ? new VaultError('NOT_FOUND', NO_SUCH_TOKEN) : undefined,
  );
};

const METADATA_DOT = 'metadata.';
const METADATA_BRACKET = /^metadata\[(.*)\]$/s;
const METADATA_FORMS =
  'name a key: metadata.<key>=<value>, metadata[<key>]=<value> or metadata={"<key>":"<value>"}';

/** `metadata={"k":"v"}`: the pairs of a JSON object of strings, or null when it is not one. */
function metadataObject(value: string): Array<[string, string]> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const pairs = Object.entries(parsed);
  if (!pairs.every((pair): pair is [string, string] => typeof pair[1] === 'string')) return null;
  return pairs;
}

/**
 * The `GET /tokens` query, read from the raw URL: Fastify's parser keeps `metadata[key]` as a flat
 * name, so the three metadata forms (`metadata.k=v`, `metadata[k]=v`, and one `metadata` parameter
 * holding a JSON object of strings, as some clients serialize a map) are gathered here into
 * `metadata: { key: value }`, `id` and `type` into arrays; a key given twice keeps its first value,
 * whatever the forms. Unknown parameters are ignored, as elsewhere in the API. Page and size stay
 * strings for the schema to check, coerce and default; a repeated one fails there.
 */
export function listQueryFrom(pairs: ReadonlyArray<readonly [string, string]>): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  const ids: string[] = [];
  const types: string[] = [];
  const metadata: Record<string, string> = {};
  const scalars: Record<'page' | 'size', string[]> = { page: [], size: [] };
  const errors: FieldErrors = {};
  const addMetadata = (key: string | undefined, value: string): void => {
    if (key === undefined || key.length === 0) {
      (errors.metadata ??= []).push(METADATA_FORMS);
    } else if (key.length > METADATA_KEY_MAX_LENGTH) {
      (errors.metadata ??= []).push(`keys are at most ${METADATA_KEY_MAX_LENGTH} characters`);
    } else if (!Object.hasOwn(metadata, key)) {
      metadata[key] = value;
    }
  };
  for (const [name, value] of pairs) {
    if (name === 'id') ids.push(value);
    else if (name === 'type') types.push(value);
    else if (name === 'page' || name === 'size') scalars[name].push(value);
    else if (name === 'metadata') {
      const object = metadataObject(value);
      if (object === null) (errors.metadata ??= []).push(METADATA_FORMS);
      else for (const [key, member] of object) addMetadata(key, member);
    } else if (name.startsWith(METADATA_DOT)) addMetadata(name.slice(METADATA_DOT.length), value);
    else if (name.startsWith('metadata[')) addMetadata(METADATA_BRACKET.exec(name)?.[1], value);
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  for (const name of ['page', 'size'] as const) {
    const values = scalars[name];
    if (values.length > 0) query[name] = values.length === 1 ? values[0] : values;
  }
  if (ids.length > 0) query.id = ids;
  if (types.length > 0) query.type = types;
  if (Object.keys(metadata).length > 0) query.metadata = metadata;
  return query;
}

export const readListQuery: preValidationAsyncHookHandler = async (request: FastifyRequest) => {
  request.query = listQueryFrom(queryPairs(request));
};

export function tokenFilter(query: ListQueryValue): TokenFilter {
  return {
    ...(query.id === undefined ? {} : { ids: query.id }),
    ...(query.type === undefined ? {} : { types: query.type }),
    ...(query.metadata === undefined ? {} : { metadata: query.metadata }),
  };
}

export type CreateBodyValue = Static<typeof CreateBody>;

/** The create request for core: `null` means "not given" for every field but `data` and `mask`. */
export function createRequest(body: CreateBodyValue): CreateTokenRequest {
  const request: { -readonly [K in keyof CreateTokenRequest]: CreateTokenRequest[K] } = { data: body.data };
  if (body.id != null) request.id = body.id;
  if (body.type != null) request.type = body.type;
  if (body.mask !== undefined) request.mask = body.mask;
  if (body.containers != null) request.containers = body.containers;
  if (body.privacy != null) request.privacy = body.privacy;
  if (body.metadata != null) request.metadata = body.metadata;
  if (body.search_indexes != null) request.search_indexes = body.search_indexes;
  if (body.fingerprint_expression != null) request.fingerprint_expression = body.fingerprint_expression;
  if (body.deduplicate_token != null) request.deduplicate_token = body.deduplicate_token;
  if (body.expires_at != null) request.expires_at = body.expires_at;
  return request;
}

/** Field by field, so that nothing core might add to a view reaches a response unreviewed. */
export function tokenBody(token: TokenView): TokenBody {
  const body: TokenBody = {
    id: token.id,
    tenant_id: token.tenant_id,
    type: token.type,
    containers: [...token.containers],
  };
  if (token.data !== undefined) body.data = token.data;
  if (token.mask !== undefined) body.mask = token.mask;
  if (token.fingerprint !== undefined) body.fingerprint = token.fingerprint;
  if (token.fingerprint_expression !== undefined) body.fingerprint_expression = token.fingerprint_expression;
  if (token.privacy !== undefined) body.privacy = { ...token.privacy };
  if (token.metadata !== undefined) body.metadata = { ...token.metadata };
  if (token.search_indexes !== undefined) body.search_indexes = [...token.search_indexes];
  if (token.created_by !== undefined) body.created_by = token.created_by;
  if (token.created_at !== undefined) body.created_at = token.created_at;
  if (token.modified_by !== undefined) body.modified_by = token.modified_by;
  if (token.modified_at !== undefined) body.modified_at = token.modified_at;
  if (token.expires_at !== undefined) body.expires_at = token.expires_at;
  return body;
}

export function tokenLocation(id: string): string {
  return `/tokens/${encodeURIComponent(id)}`;
}

const tags = ['tokens'];
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function registerTokenRoutes(app: VaultServer, services: Services): void {
  // One plugin scope for the token routes: responses may carry token data, so none is cached; the
  // merge-patch parser lives in a child scope of its own, so only PATCH accepts that type.
  app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
    });
    registerTokenScope(scope, services);
    await scope.register(async (patchScope) => {
      installMergePatchParser(patchScope);
      registerUpdateRoute(patchScope, services);
    });
  });
}

function registerTokenScope(app: VaultServer, services: Services): void {
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
      if (!created) return reply.code(200).send(tokenBody(token));
      return reply.code(201).header('location', tokenLocation(token.id)).send(tokenBody(token));
    },
  );

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
      return paginate(result.items.map(tokenBody), result.total, page, size);
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
      return paginate(result.items.map(tokenBody), result.total, page, size);
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
    async (request) => tokenBody(await byId(services.tokens.get(principalOf(request), request.params.id))),
  );

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
    async (request) => {
      const updated = await byId(
        services.tokens.update(principalOf(request), request.params.id, request.body),
      );
      return tokenBody(updated);
    },
  );
}

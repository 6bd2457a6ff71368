/**
 * The request bodies of the token routes (create, update, search) and the create request core
 * takes. The token a route returns is core's one `TokenSchema`.
 */
import { Type, type Static } from 'typebox';
import { MAX_FINGERPRINT_EXPRESSION_LENGTH, MAX_SEARCH_INDEXES } from '../../core/expressions/index.ts';
import type { CreateTokenRequest } from '../../core/tokens/contract.ts';
import {
  CLASSIFICATION_MAX_LENGTH,
  IMPACT_LEVELS,
  MAX_QUERY_LENGTH,
  MAX_TOKEN_PAGE_SIZE,
  METADATA_KEY_MAX_LENGTH,
  METADATA_VALUE_MAX_LENGTH,
  RESTRICTION_POLICIES,
} from '../../core/tokens/index.ts';
import { pageBody } from '../http/pagination.ts';
import { NullableInput, StringEnum, StringMap } from '../http/schemas.ts';

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

export const UpdateBody = Type.Object(
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

export const SearchBody = Type.Object(
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

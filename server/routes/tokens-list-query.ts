/**
 * The `GET /tokens` query: its schema, how it is read from the raw URL (the three metadata forms),
 * and the filter core takes.
 */
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { Type, type Static } from 'typebox';
import { validationError, type FieldErrors } from '../../core/errors/catalogue.ts';
import type { TokenFilter } from '../../core/tokens/contract.ts';
import { keyedRecord } from '../../core/validation/keyed-record.ts';
import {
  MAX_FILTER_IDS,
  MAX_FILTER_METADATA,
  MAX_FILTER_TYPES,
  MAX_TOKEN_PAGE_SIZE,
  METADATA_KEY_MAX_LENGTH,
  METADATA_VALUE_MAX_LENGTH,
  TOKEN_ID_MAX_LENGTH,
} from '../../core/tokens/index.ts';
import { pageQuery } from '../http/pagination.ts';
import { queryPairs } from '../http/raw-query.ts';
import { StringMap } from '../http/schemas.ts';

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
  const metadata = keyedRecord<string>();
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

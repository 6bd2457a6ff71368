import type { TokenFilter, TokenView } from '../../../core/tokens/contract.ts';
import type { ApiAnswer, ApiQuery } from '../../connection/api-types.ts';
import { placeAfter } from './member-order.ts';

type ApiToken = ApiAnswer<'get', '/tokens/{id}'>;

/**
 * A token in core's member order: the members the schema declares before `containers` (data, mask
 * and the fingerprint) are optional, so the server writes them after it.
 */
export function tokenOf(body: ApiToken): TokenView {
  return placeAfter(body, 'type', ['data', 'mask', 'fingerprint', 'fingerprint_expression']);
}

/** The query of a token list: page, size and the filter. */
export type TokenListQuery = ApiQuery<'/tokens', 'get'>;

export function tokenListQuery(
  filter: Omit<TokenFilter, 'parent'>,
  { page, size }: { readonly page: number; readonly size: number },
): TokenListQuery {
  return {
    page,
    size,
    ...(filter.ids === undefined ? {} : { id: [...filter.ids] }),
    ...(filter.types === undefined ? {} : { type: [...filter.types] }),
    ...(filter.metadata === undefined ? {} : { metadata: { ...filter.metadata } }),
  };
}

/**
 * The list query as the API reads it: `id` and `type` repeated, and the metadata filter as one
 * `metadata` parameter holding a JSON object (the bracket form would put keys into the URL unescaped).
 */
export function tokenListQueryString(query: TokenListQuery): string {
  const parts: string[] = [];
  const add = (name: string, value: string | number) => parts.push(`${name}=${encodeURIComponent(value)}`);
  add('page', query.page);
  add('size', query.size);
  for (const id of query.id ?? []) add('id', id);
  for (const type of query.type ?? []) add('type', type);
  if (query.metadata !== undefined) add('metadata', JSON.stringify(query.metadata));
  return parts.join('&');
}

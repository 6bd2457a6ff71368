/**
 * The host side of `req.svc`: a client bound to the reactor's application whose calls go through
 * the same token services, authorization and audit as the HTTP API. Shapes follow the public JS
 * client: inputs may use camelCase or snake_case field names; results use camelCase field names
 * (never inside `data`, `metadata` or `mask`), lists are `{ data, pagination: { totalItems,
 * pageNumber, pageSize, totalPages } }`.
 */
import type { Principal } from '../access/principal.ts';
import { validationError } from '../errors/catalogue.ts';
import type { SvcBridge } from '../sandbox/index.ts';
import type { Page } from '../common-types.ts';
import type { CreateTokenRequest, TokenService, TokenView } from '../tokens/contract.ts';
import { DEFAULT_PAGE_SIZE } from '../common-types.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

const INPUT_NAMES: Readonly<Record<string, string>> = {
  searchIndexes: 'search_indexes',
  fingerprintExpression: 'fingerprint_expression',
  deduplicateToken: 'deduplicate_token',
  expiresAt: 'expires_at',
};

/** Top-level field names in snake_case; values untouched. */
function snakeInput(value: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw validationError({ [what]: ['must be an object'] });
  const out = keyedRecord<unknown>();
  for (const [key, item] of Object.entries(value))
    out[Object.hasOwn(INPUT_NAMES, key) ? INPUT_NAMES[key]! : key] = item;
  return out;
}

function camelKey(key: string): string {
  return key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** A token view with camelCase field names; its data, metadata and mask are returned as they are. */
export function camelToken(token: TokenView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(token)) out[camelKey(key)] = value;
  return out;
}

function camelPage(page: Page<TokenView>, number: number, size: number): Record<string, unknown> {
  return {
    data: page.items.map(camelToken),
    pagination: {
      totalItems: page.total,
      pageNumber: number,
      pageSize: size,
      totalPages: Math.ceil(page.total / size),
    },
  };
}

function idArgument(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw validationError({ id: ['must be a token id'] });
  return value;
}

function pageOf(query: Record<string, unknown>): { page: number; size: number } {
  const page = query['page'] ?? 1;
  const size = query['size'] ?? DEFAULT_PAGE_SIZE;
  if (typeof page !== 'number' || typeof size !== 'number') {
    throw validationError({ page: ['page and size must be numbers'] });
  }
  return { page, size };
}

function stringList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const list = [value].flat();
  if (!list.every((item): item is string => typeof item === 'string')) {
    throw validationError({ query: ['id and type must be strings or lists of strings'] });
  }
  return list;
}

/** `req.svc` for an application. */
export function svcBridge(tokens: TokenService, principal: Principal): SvcBridge {
  return async (method, args) => {
    switch (method) {
      case 'tokens.create': {
        const request = snakeInput(args[0], 'token') as unknown as CreateTokenRequest;
        return camelToken((await tokens.create(principal, request)).token);
      }
      case 'tokens.retrieve':
        return camelToken(await tokens.get(principal, idArgument(args[0])));
      case 'tokens.update':
        return camelToken(await tokens.update(principal, idArgument(args[0]), snakeInput(args[1], 'patch')));
      case 'tokens.delete':
        await tokens.delete(principal, idArgument(args[0]));
        return null;
      case 'tokens.list': {
        const query = args[0] === undefined ? {} : snakeInput(args[0], 'query');
        const { page, size } = pageOf(query);
        const metadata = query['metadata'];
        const filter = {
          ids: stringList(query['id']),
          types: stringList(query['type']),
          ...(isPlainObject(metadata) ? { metadata: metadata as Record<string, string> } : {}),
        };
        return camelPage(await tokens.list(principal, filter, { page, size }), page, size);
      }
      case 'tokens.search': {
        const query = snakeInput(args[0], 'query');
        const { page, size } = pageOf(query);
        const text = query['query'];
        if (typeof text !== 'string') throw validationError({ query: ['is required'] });
        return camelPage(await tokens.search(principal, { query: text, page, size }), page, size);
      }
      case 'tokenize':
        return tokens.tokenize(principal, args[0]);
    }
  };
}

import type { Principal } from '../../../core/access/principal.ts';
import { VaultError } from '../../../core/errors/catalogue.ts';
import type { ApiClient } from '../../../client/api-client.ts';

/**
 * Whose rights a request of the command services carries.
 * `operator`: the operator credential of the server holding this vault; the principal's tenant goes
 * in SVC-TENANT-ID. `key`: an API key (--server), whose own tenant and permissions apply.
 * `session`: a member signed in with `svc auth login`; the principal's tenant goes in SVC-TENANT-ID
 * and the member's role there applies.
 */
export type HttpAuthority = 'operator' | 'key' | 'session';

/** The typed client and whose rights it carries: what every service over HTTP is built on. */
export interface HttpContext {
  readonly api: ApiClient;
  readonly authority: HttpAuthority;
}

/**
 * Headers naming the tenant of `principal` (not for an API key: a key fixes its own tenant) and
 * the view the command asks for (masked unless --reveal): the server shows token data through it.
 */
export function tenantHeaders(http: HttpContext, principal: Principal): { headers: Record<string, string> } {
  return {
    headers: {
      ...(http.authority === 'key' ? {} : { 'svc-tenant-id': principal.tenantId }),
      ...(principal.view === undefined ? {} : { 'svc-view': principal.view }),
    },
  };
}

/** An id for a path segment: an empty one names nothing (in a URL it would name the collection instead). */
export function pathId(id: string): string {
  if (id === '') throw new VaultError('NOT_FOUND');
  return id;
}

/** The options of a request to `<collection>/{id}` in the principal's tenant. */
export function atId(
  http: HttpContext,
  principal: Principal,
  id: string,
): { headers: Record<string, string>; params: { path: { id: string } } } {
  return { ...tenantHeaders(http, principal), params: { path: { id: pathId(id) } } };
}

/** A page of the API's envelope as the services give it, each item in the services' view. */
export function pageOf<T, U>(
  body: { readonly pagination: { readonly total_items: number }; readonly data: readonly T[] },
  view: (item: T) => U,
): { total: number; items: U[] } {
  return { total: body.pagination.total_items, items: body.data.map(view) };
}

/** The query of an id filter: the API repeats `id` for each (`?id=a&id=b`). */
export function idsQuery(ids: readonly string[] | undefined): { id?: string[] } {
  return ids === undefined ? {} : { id: [...ids] };
}

/** The query of a filter by ids and name (formulas, reactors, proxies). */
export function namedQuery({
  ids,
  name,
  ...rest
}: {
  readonly ids?: readonly string[];
  readonly name?: string;
}): {
  id?: string[];
  name?: string;
} {
  everyFieldSent(rest);
  return { ...idsQuery(ids), ...(name === undefined ? {} : { name }) };
}

/**
 * Compiles only when `rest` (what is left of a filter once its fields are put into a query) is
 * empty: a field added to a core filter and not sent would be dropped over HTTP without a word.
 */
export function everyFieldSent(_rest: Record<string, never>): void {}

import type { Proxy } from '../../../core/proxies/index.ts';
import { acknowledged, answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { atId, type HttpContext, namedQuery, pageOf, tenantHeaders } from './context.ts';
import { placeAfter } from './member-order.ts';

type ApiProxy = ApiAnswer<'get', '/proxies/{id}'>;

/** A proxy as core gives it: the API leaves a missing transform out; core says null. */
function proxyOf(body: ApiProxy): Proxy {
  return placeAfter(
    {
      ...body,
      request_transform: body.request_transform ?? null,
      response_transform: body.response_transform ?? null,
    },
    'destination_url',
    ['request_transform', 'response_transform'],
  );
}

/**
 * Pre-configured proxies of the principal's tenant. Core words "not found" of a proxy itself, and
 * the API's words are core's.
 */
export function httpProxies(http: HttpContext): CliServices['proxies'] {
  const { api } = http;
  return {
    create: async (principal, input) =>
      proxyOf(
        await answer(api.POST('/proxies', { ...tenantHeaders(http, principal), body: input }), 'as-sent'),
      ),
    list: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/proxies', {
            ...tenantHeaders(http, principal),
            params: { query: { page, size, ...namedQuery(filter) } },
          }),
        ),
        proxyOf,
      ),
    get: async (principal, id) =>
      proxyOf(await answer(api.GET('/proxies/{id}', atId(http, principal, id)), 'as-sent')),
    update: async (principal, id, input) =>
      proxyOf(
        await answer(api.PUT('/proxies/{id}', { ...atId(http, principal, id), body: input }), 'as-sent'),
      ),
    delete: (principal, id) =>
      acknowledged(api.DELETE('/proxies/{id}', atId(http, principal, id)), 'as-sent'),
  };
}

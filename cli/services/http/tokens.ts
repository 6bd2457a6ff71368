import { acknowledged, answer, answerWithResponse } from '../../connection/answer.ts';
import type { ApiRequestBody } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { atId, type HttpContext, pageOf, tenantHeaders } from './context.ts';
import { tokenListQuery, tokenListQueryString, tokenOf } from './token-view.ts';
import { asWritten } from './user-json.ts';

const MERGE_PATCH = 'application/merge-patch+json';

/** Tokens of the principal's tenant, shown through the view its principal asks for. */
export function httpTokens(http: HttpContext): CliServices['tokens'] {
  const { api } = http;
  return {
    async create(principal, request) {
      const { data, response } = await answerWithResponse(
        api.POST('/tokens', {
          ...tenantHeaders(http, principal),
          body: asWritten<ApiRequestBody<'/tokens', 'post'>>(request),
        }),
      );
      // 201 made a token; 200 is an existing one found by deduplication.
      return { token: tokenOf(data), created: response.status === 201 };
    },
    tokenize: (principal, body) => answer(api.POST('/tokenize', { ...tenantHeaders(http, principal), body })),
    get: async (principal, id) => tokenOf(await answer(api.GET('/tokens/{id}', atId(http, principal, id)))),
    list: async (principal, filter, page) =>
      pageOf(
        await answer(
          api.GET('/tokens', {
            ...tenantHeaders(http, principal),
            params: { query: tokenListQuery(filter, page) },
            querySerializer: tokenListQueryString,
          }),
        ),
        tokenOf,
      ),
    update: async (principal, id, patch) =>
      tokenOf(
        await answer(
          api.PATCH('/tokens/{id}', {
            ...atId(http, principal, id),
            headers: { ...tenantHeaders(http, principal).headers, 'content-type': MERGE_PATCH },
            body: asWritten<ApiRequestBody<'/tokens/{id}', 'patch'>>(patch),
          }),
        ),
      ),
    delete: (principal, id) => acknowledged(api.DELETE('/tokens/{id}', atId(http, principal, id))),
    search: async (principal, request) =>
      pageOf(
        await answer(api.POST('/tokens/search', { ...tenantHeaders(http, principal), body: { ...request } })),
        tokenOf,
      ),
  };
}

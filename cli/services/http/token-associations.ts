import { acknowledged, answer, answerWithResponse } from '../../connection/answer.ts';
import type { ApiRequestBody } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { pageOf, pathId, tenantHeaders, type HttpContext } from './context.ts';
import { tokenListQuery, tokenListQueryString, tokenOf } from './token-view.ts';
import { asWritten } from './user-json.ts';

/** Parent and child tokens: links between tokens, and children made under a parent. */
export function httpTokenAssociations(http: HttpContext): CliServices['tokenAssociations'] {
  const { api } = http;
  const link = (principal: Parameters<typeof tenantHeaders>[1], parentId: string, childId: string) => ({
    ...tenantHeaders(http, principal),
    params: { path: { parentId: pathId(parentId), childId: pathId(childId) } },
  });
  return {
    associate: (principal, parentId, childId) =>
      acknowledged(api.POST('/tokens/{parentId}/children/{childId}', link(principal, parentId, childId))),
    dissociate: (principal, parentId, childId) =>
      acknowledged(api.DELETE('/tokens/{parentId}/children/{childId}', link(principal, parentId, childId))),
    async createChild(principal, parentId, request) {
      const { data, response } = await answerWithResponse(
        api.POST('/tokens/{parentId}/children', {
          ...tenantHeaders(http, principal),
          params: { path: { parentId: pathId(parentId) } },
          body: asWritten<ApiRequestBody<'/tokens/{parentId}/children', 'post'>>(request),
        }),
      );
      // 201 made a token; 200 is an existing one found by deduplication.
      return { token: tokenOf(data), created: response.status === 201 };
    },
    children: async (principal, parentId, filter, page) =>
      pageOf(
        await answer(
          api.GET('/tokens/{parentId}/children', {
            ...tenantHeaders(http, principal),
            params: { path: { parentId: pathId(parentId) }, query: tokenListQuery(filter, page) },
            querySerializer: tokenListQueryString,
          }),
        ),
        tokenOf,
      ),
  };
}

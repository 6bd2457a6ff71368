import type { Member } from '../../../core/tenancy/contract.ts';
import { acknowledged, answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { atId, type HttpContext, pageOf, tenantHeaders } from './context.ts';
import { userOf } from './users.ts';

type ApiMember = ApiAnswer<'put', '/tenants/self/members/{id}'>;

/** A member as core gives it (its user without the API's `picture`). */
export function memberOf(body: ApiMember): Member {
  return { ...body, user: userOf(body.user) };
}

/** The members of the principal's tenant. */
export function httpMembers(http: HttpContext): CliServices['members'] {
  const { api } = http;
  return {
    list: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/tenants/self/members', {
            ...tenantHeaders(http, principal),
            params: {
              query: {
                page,
                size,
                ...(filter.userIds === undefined ? {} : { user_id: [...filter.userIds] }),
              },
            },
          }),
        ),
        memberOf,
      ),
    remove: (principal, id) =>
      acknowledged(api.DELETE('/tenants/self/members/{id}', atId(http, principal, id))),
    updateRole: async (principal, id, role) =>
      memberOf(
        await answer(api.PUT('/tenants/self/members/{id}', { ...atId(http, principal, id), body: { role } })),
      ),
  };
}

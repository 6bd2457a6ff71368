import { acknowledged, answer } from '../../connection/answer.ts';
import type { CliServices } from '../contract.ts';
import { atId, type HttpContext, pageOf, tenantHeaders } from './context.ts';
import { memberOf } from './members.ts';

/** Invitations to the principal's tenant, and accepting one. */
export function httpInvitations(http: HttpContext): CliServices['invitations'] {
  const { api } = http;
  return {
    create: (principal, input) =>
      answer(api.POST('/tenants/self/invitations', { ...tenantHeaders(http, principal), body: input })),
    list: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/tenants/self/invitations', {
            ...tenantHeaders(http, principal),
            params: {
              query: { page, size, ...(filter.status === undefined ? {} : { status: filter.status }) },
            },
          }),
        ),
        (invitation) => invitation,
      ),
    get: (principal, id) => answer(api.GET('/tenants/self/invitations/{id}', atId(http, principal, id))),
    resend: (principal, id) =>
      answer(api.POST('/tenants/self/invitations/{id}/resend', atId(http, principal, id))),
    delete: (principal, id) =>
      acknowledged(api.DELETE('/tenants/self/invitations/{id}', atId(http, principal, id))),
    // The link's secret is the credential: the route is public, whoever the client signs in as.
    accept: async (input) => ({
      member: memberOf(await answer(api.POST('/invitations/accept', { body: input }))),
    }),
  };
}

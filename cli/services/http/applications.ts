import type { AccessRule } from '../../../core/access/rules.ts';
import type { Application } from '../../../core/services-contract.ts';
import { acknowledged, answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { atId, type HttpContext, idsQuery, pageOf, tenantHeaders } from './context.ts';
import { placeAfter } from './member-order.ts';

type ApiApplication = ApiAnswer<'get', '/applications/{id}'>;
type ApiRule = ApiApplication['rules'][number];

/**
 * A rule as core holds it: the API leaves out the container of a rule limited by conditions, which
 * core holds as ''.
 */
function ruleOf(rule: ApiRule): AccessRule {
  return placeAfter({ ...rule, container: rule.container ?? '' }, 'priority', ['container']);
}

/** An application as core gives it (its key too, on create and regenerate). */
export function applicationOf<A extends ApiApplication>(
  body: A,
): Omit<A, 'rules'> & Pick<Application, 'rules'> {
  return { ...body, rules: body.rules.map(ruleOf) };
}

/**
 * A rule as the API takes it, field by field; core checks each value. A rule read from the command
 * line has arrays where arrays belong (cli/commands/app/grants.ts) and null conditions for none.
 */
function ruleBody(rule: AccessRule) {
  return {
    description: rule.description,
    priority: rule.priority,
    container: rule.container,
    permissions: [...rule.permissions],
    transform: rule.transform,
    ...(rule.conditions === undefined || rule.conditions === null
      ? {}
      : { conditions: [...rule.conditions] }),
  };
}

/** An application's fields as the API takes them: the grants copied (core checks each value). */
function applicationBody<
  I extends { readonly permissions?: readonly string[]; readonly rules?: readonly AccessRule[] },
>(input: I) {
  const { permissions, rules, ...rest } = input;
  return {
    ...rest,
    ...(permissions === undefined ? {} : { permissions: [...permissions] }),
    ...(rules === undefined ? {} : { rules: rules.map(ruleBody) }),
  };
}

/** Applications of the principal's tenant and their API keys. */
export function httpApplications(http: HttpContext): CliServices['applications'] {
  const { api } = http;
  return {
    create: async (principal, input) =>
      applicationOf(
        await answer(
          api.POST('/applications', {
            ...tenantHeaders(http, principal),
            body: applicationBody(input),
          }),
        ),
      ),
    list: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/applications', {
            ...tenantHeaders(http, principal),
            params: {
              query: {
                page,
                size,
                ...idsQuery(filter.ids),
                ...(filter.types === undefined ? {} : { type: [...filter.types] }),
              },
            },
          }),
        ),
        applicationOf,
      ),
    get: async (principal, id) =>
      applicationOf(await answer(api.GET('/applications/{id}', atId(http, principal, id)))),
    update: async (principal, id, input) =>
      applicationOf(
        await answer(
          api.PUT('/applications/{id}', {
            ...atId(http, principal, id),
            body: applicationBody(input),
          }),
        ),
      ),
    delete: (principal, id) => acknowledged(api.DELETE('/applications/{id}', atId(http, principal, id))),
    regenerate: async (principal, id) =>
      applicationOf(await answer(api.POST('/applications/{id}/regenerate', atId(http, principal, id)))),
  };
}

import type { Reactor } from '../../../core/reactors/contract.ts';
import { acknowledged, answer } from '../../connection/answer.ts';
import type { ApiAnswer } from '../../connection/api-types.ts';
import type { CliServices } from '../contract.ts';
import { applicationOf } from './applications.ts';
import { atId, type HttpContext, namedQuery, pageOf, tenantHeaders } from './context.ts';
import { httpFormulas } from './formulas.ts';
import { placeAfter } from './member-order.ts';
import { reactAnswer } from './react.ts';

type ApiReactor = ApiAnswer<'get', '/reactors/{id}'>;

/**
 * A reactor as core gives it: the API leaves out an application the reactor does not have (core
 * says null), and writes the one it has after the members it always has.
 */
function reactorOf({ application, ...reactor }: ApiReactor): Reactor {
  return placeAfter(
    { ...reactor, application: application === undefined ? null : applicationOf(application) },
    'configuration',
    ['application'],
  );
}

/**
 * Formulas, reactors and invoking them, in the server that holds the sandbox. Core words "not
 * found" of a reactor itself, and the API's words are core's.
 */
export function httpReactors(http: HttpContext): CliServices['reactors'] {
  const { api } = http;
  return {
    ...httpFormulas(http),
    create: async (principal, input) =>
      reactorOf(
        await answer(api.POST('/reactors', { ...tenantHeaders(http, principal), body: input }), 'as-sent'),
      ),
    list: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/reactors', {
            ...tenantHeaders(http, principal),
            params: { query: { page, size, ...namedQuery(filter) } },
          }),
        ),
        reactorOf,
      ),
    get: async (principal, id) =>
      reactorOf(await answer(api.GET('/reactors/{id}', atId(http, principal, id)), 'as-sent')),
    update: async (principal, id, input) =>
      reactorOf(
        await answer(api.PUT('/reactors/{id}', { ...atId(http, principal, id), body: input }), 'as-sent'),
      ),
    delete: (principal, id) =>
      acknowledged(api.DELETE('/reactors/{id}', atId(http, principal, id)), 'as-sent'),
    react: (principal, id, args) =>
      reactAnswer(
        api.POST('/reactors/{id}/react', { ...atId(http, principal, id), body: { args }, parseAs: 'text' }),
      ),
  };
}

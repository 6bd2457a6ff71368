import { formulaWarningOf } from '../../../core/reactors/formula-warning.ts';
import type { SavedFormula } from '../../../core/reactors/contract.ts';
import { acknowledged, answer, answerWithResponse, type Answered } from '../../connection/answer.ts';
import type { CliServices } from '../contract.ts';
import { atId, type HttpContext, namedQuery, pageOf, tenantHeaders } from './context.ts';

type FormulaService = Pick<
  CliServices['reactors'],
  'createFormula' | 'listFormulas' | 'getFormula' | 'updateFormula' | 'deleteFormula'
>;

/**
 * A saved formula and the warning the server sends beside it in `SVC-Warning` (code that does not
 * compile). Core words "not found" of a formula itself, and the API's words are core's.
 */
async function savedFormula<A extends Answered & { data?: SavedFormula['formula'] }>(
  request: Promise<A>,
): Promise<SavedFormula> {
  const { data, response } = await answerWithResponse(request, 'as-sent');
  const warning = response.headers.get('svc-warning');
  return { formula: data, warnings: warning === null ? [] : [formulaWarningOf(warning)] };
}

/** Reactor formulas: the official ones, and the tenant's private ones. */
export function httpFormulas(http: HttpContext): FormulaService {
  const { api } = http;
  return {
    createFormula: (principal, input) =>
      savedFormula(api.POST('/reactor-formulas', { ...tenantHeaders(http, principal), body: input })),
    listFormulas: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/reactor-formulas', {
            ...tenantHeaders(http, principal),
            params: { query: { page, size, ...namedQuery(filter) } },
          }),
        ),
        (formula) => formula,
      ),
    getFormula: (principal, id) =>
      answer(api.GET('/reactor-formulas/{id}', atId(http, principal, id)), 'as-sent'),
    updateFormula: (principal, id, input) =>
      savedFormula(api.PUT('/reactor-formulas/{id}', { ...atId(http, principal, id), body: input })),
    deleteFormula: (principal, id) =>
      acknowledged(api.DELETE('/reactor-formulas/{id}', atId(http, principal, id)), 'as-sent'),
  };
}

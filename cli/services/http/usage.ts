import { answer } from '../../connection/answer.ts';
import type { CliServices } from '../contract.ts';
import { tenantHeaders, type HttpContext } from './context.ts';

/** The principal's tenant's usage report. */
export function httpUsage(http: HttpContext): CliServices['usage'] {
  return {
    report: (principal) =>
      answer(http.api.GET('/tenants/self/reports/usage', tenantHeaders(http, principal))),
  };
}

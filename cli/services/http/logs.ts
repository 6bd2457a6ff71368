import type { LogFilter } from '../../../core/audit/audit-log.ts';
import { answer } from '../../connection/answer.ts';
import type { CliServices } from '../contract.ts';
import { everyFieldSent, pageOf, tenantHeaders, type HttpContext } from './context.ts';

/** The query of a log filter: every field of core's filter is sent under the API's name. */
function filterQuery(filter: LogFilter) {
  const { entityType, entityId, actorId, actorType, operation, startDate, endDate, ...rest } = filter;
  everyFieldSent(rest);
  return {
    ...(entityType === undefined ? {} : { entity_type: entityType }),
    ...(entityId === undefined ? {} : { entity_id: entityId }),
    ...(actorId === undefined ? {} : { actor_id: actorId }),
    ...(actorType === undefined ? {} : { actor_type: actorType }),
    ...(operation === undefined ? {} : { operation }),
    ...(startDate === undefined ? {} : { start_date: startDate }),
    ...(endDate === undefined ? {} : { end_date: endDate }),
  };
}

/** A tenant's audit log, and the operator's check of every chain. */
export function httpLogs(http: HttpContext): CliServices['logs'] {
  const { api } = http;
  return {
    list: async (principal, filter, { page, size }) =>
      pageOf(
        await answer(
          api.GET('/logs', {
            ...tenantHeaders(http, principal),
            params: { query: { page, size, ...filterQuery(filter) } },
          }),
        ),
        (entry) => entry,
      ),
    async verify(tenantId) {
      const report = await answer(
        api.GET('/operator/logs/verify', {
          params: { query: tenantId === undefined ? {} : { tenant_id: tenantId } },
        }),
      );
      const broken = report.first_break;
      return {
        ok: report.ok,
        tenants: report.tenants,
        entries: report.entries,
        firstBreak:
          broken === null
            ? null
            : {
                tenantId: broken.tenant_id,
                seq: broken.seq,
                entryId: broken.entry_id,
                reason: broken.reason,
              },
      };
    },
  };
}

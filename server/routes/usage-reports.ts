import { Type, type Static } from 'typebox';
import type { Services } from '../../core/services-contract.ts';
import type { UsageReport } from '../../core/tenancy/contract.ts';
import { principalOf } from '../http/access.ts';
import { Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const TokenMetricsSchema = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  last_created_at: Type.Optional(Timestamp),
});

export const UsageReportSchema = Type.Object({
  token_report: Type.Object({
    // A plain `additionalProperties` map (OpenAPI 3.0 knows no patternProperties).
    metrics_by_type: Type.Unsafe<Record<string, Static<typeof TokenMetricsSchema>>>({
      type: 'object',
      additionalProperties: TokenMetricsSchema,
      description: 'Per token type: how many tokens exist and when the newest was created.',
    }),
    included_monthly_active_tokens: Type.Integer({ minimum: 0 }),
    monthly_active_tokens: Type.Integer({
      minimum: 0,
      description: 'Tokens created, read or used this calendar month (UTC), each counted once.',
    }),
    monthly_active_token_history: Type.Array(
      Type.Object({
        year: Type.Integer(),
        month: Type.Integer({ minimum: 1, maximum: 12 }),
        count: Type.Integer({ minimum: 0 }),
      }),
    ),
  }),
});

type UsageReportBody = Static<typeof UsageReportSchema>;

function usageReportBody(report: UsageReport): UsageReportBody {
  const { token_report: tokens } = report;
  return {
    token_report: {
      metrics_by_type: Object.fromEntries(
        Object.entries(tokens.metrics_by_type).map(([type, metrics]) => [
          type,
          metrics.last_created_at === undefined
            ? { count: metrics.count }
            : { count: metrics.count, last_created_at: metrics.last_created_at },
        ]),
      ),
      included_monthly_active_tokens: tokens.included_monthly_active_tokens,
      monthly_active_tokens: tokens.monthly_active_tokens,
      monthly_active_token_history: tokens.monthly_active_token_history.map(({ year, month, count }) => ({
        year,
        month,
        count,
      })),
    },
  };
}

export function registerUsageReportRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/tenants/self/reports/usage',
    {
      config: { access: { permission: 'report:read' } },
      schema: {
        summary: "The caller's tenant usage report",
        description:
          'Tokens per type, and monthly active tokens: created, read (get, list page, search page) or ' +
          'used this calendar month (UTC), each token once; with the month-by-month history.',
        tags: ['tenants'],
        response: { 200: UsageReportSchema },
      },
    },
    async (request) => usageReportBody(await services.usage.report(principalOf(request))),
  );

  app.get(
    '/tenants/self/reports/operations',
    {
      config: { access: { permission: 'report:read' } },
      schema: {
        summary: "The caller's tenant operations report",
        description: 'The same report as `/tenants/self/reports/usage`, under its other name.',
        tags: ['tenants'],
        response: { 200: UsageReportSchema },
      },
    },
    async (request) => usageReportBody(await services.usage.report(principalOf(request))),
  );
}

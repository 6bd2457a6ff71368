import { authorize } from '../access/authorize.ts';
import { VaultError } from '../errors/catalogue.ts';
import {
  currentMonthlyActiveTokens,
  monthlyActiveTokenHistory,
  tokenMetricsByType,
} from '../tokens/usage.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { UsageReport, UsageService } from './contract.ts';

/** Included monthly active tokens when the configuration names none: 1,000, the smallest plan's allowance. */
export const DEFAULT_INCLUDED_MONTHLY_ACTIVE_TOKENS = 1000;

/**
 * The tenant usage report. A read of counters, not of an entity: it is
 * not audited and records no token activity.
 */
export function createUsageService(vault: VaultHandle, includedMonthlyActiveTokens: number): UsageService {
  return {
    async report(principal): Promise<UsageReport> {
      authorize(principal, 'report:read', { tenantId: principal.tenantId });
      const db = vault.db;
      const tenant = await db
        .selectFrom('tenants')
        .select('id')
        .where('id', '=', principal.tenantId)
        .executeTakeFirst();
      if (!tenant) throw new VaultError('NOT_FOUND', 'No such tenant.');
      const now = vault.clock.now();
      const metrics = await tokenMetricsByType(db, tenant.id, now);
      const metrics_by_type: UsageReport['token_report']['metrics_by_type'] = {};
      for (const [type, m] of Object.entries(metrics)) {
        metrics_by_type[type] =
          m.last_created_at === null
            ? { count: m.count }
            : { count: m.count, last_created_at: m.last_created_at };
      }
      return {
        token_report: {
          metrics_by_type,
          included_monthly_active_tokens: includedMonthlyActiveTokens,
          monthly_active_tokens: await currentMonthlyActiveTokens(db, tenant.id, now),
          monthly_active_token_history: await monthlyActiveTokenHistory(db, tenant.id),
        },
      };
    },
  };
}

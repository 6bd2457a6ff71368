/**
 * What the tenant usage report needs from tokens: monthly active tokens
 * and per-type counts. Read-only; expired tokens that wait for the sweeper are not counted.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { activityMonth } from './activity.ts';

export { activityMonth } from './activity.ts';

/** Tokens active in `month` (`YYYY-MM`, UTC). */
export async function monthlyActiveTokens(
  db: Kysely<Database>,
  tenantId: string,
  month: string,
): Promise<number> {
  const row = await db
    .selectFrom('token_activity')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('month', '=', month)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every month with activity, oldest first (the usage report's `monthly_active_token_history`). */
export async function monthlyActiveTokenHistory(
  db: Kysely<Database>,
  tenantId: string,
): Promise<Array<{ year: number; month: number; count: number }>> {
  const rows = await db
    .selectFrom('token_activity')
    .select(['month', (eb) => eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', tenantId)
    .groupBy('month')
    .orderBy('month')
    .execute();
  return rows.map((r) => ({
    year: Number(r.month.slice(0, 4)),
    month: Number(r.month.slice(5, 7)),
    count: Number(r.n),
  }));
}

export interface TypeMetrics {
  readonly count: number;
  readonly last_created_at: string | null;
}

/** Live tokens per type with the newest creation time (`metrics_by_type`). */
export async function tokenMetricsByType(
  db: Kysely<Database>,
  tenantId: string,
  now: Date,
): Promise<Record<string, TypeMetrics>> {
  const rows = await db
    .selectFrom('tokens')
    .select(['type', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.max('created_at').as('last')])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
    .groupBy('type')
    .orderBy('type')
    .execute();
  const out: Record<string, TypeMetrics> = {};
  for (const r of rows) out[r.type] = { count: Number(r.n), last_created_at: r.last ?? null };
  return out;
}

/** Convenience for the report: this month's count at `now`. */
export function currentMonthlyActiveTokens(
  db: Kysely<Database>,
  tenantId: string,
  now: Date,
): Promise<number> {
  return monthlyActiveTokens(db, tenantId, activityMonth(now));
}

/**
 * Monthly active tokens: a token counts once per calendar month (UTC)
 * when it is created, read (get, a list or search page) or used. One row per (tenant, month,
 * token); a row is inserted only when absent. `recordActivity` checks with a select first, so
 * repeated reads inside a transaction do not journal a write each time; the read path keeps the
 * marks it already wrote in memory instead (core/tokens/read-audit.ts) and writes the rest with
 * `insertActivity`.
 */
import type { Kysely } from 'kysely';
import { insertRowsCompiled } from '../storage/compiled-queries.ts';
import type { Database } from '../storage/schema.ts';

/** The last month computed: its key and the instants it spans, `[from, to)` in ms. */
let lastMonth = { key: '', from: 0, to: 0 };

/**
 * `YYYY-MM` of an instant, in UTC. Every read asks, and nearly always for the month it asked
 * last: that month's key is kept with the instants it spans.
 */
export function activityMonth(at: Date): string {
  const time = at.getTime();
  if (time >= lastMonth.from && time < lastMonth.to) return lastMonth.key;
  const key = at.toISOString().slice(0, 7);
  // Midnight of the month's first day and of the next month's (setUTCFullYear takes years below 100 as they are).
  const from = new Date(0).setUTCFullYear(at.getUTCFullYear(), at.getUTCMonth(), 1);
  const to = new Date(0).setUTCFullYear(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  lastMonth = { key, from, to };
  return key;
}

/** SQLite's default limit on bound parameters is far above this; it keeps statements small. */
const CHUNK = 400;

/** Records that these tokens were active at `at` (inside the caller's transaction). */
export async function recordActivity(
  trx: Kysely<Database>,
  tenantId: string,
  tokenIds: readonly string[],
  at: Date,
): Promise<void> {
  const month = activityMonth(at);
  const unique = [...new Set(tokenIds)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const present = await trx
      .selectFrom('token_activity')
      .select('token_id')
      .where('tenant_id', '=', tenantId)
      .where('month', '=', month)
      .where('token_id', 'in', chunk)
      .execute();
    const seen = new Set(present.map((r) => r.token_id));
    const missing = chunk.filter((id) => !seen.has(id));
    if (missing.length > 0) {
      await trx
        .insertInto('token_activity')
        .values(missing.map((token_id) => ({ tenant_id: tenantId, month, token_id })))
        // Another process may record the same token between the select and this insert.
        .onConflict((c) => c.doNothing())
        .execute();
    }
  }
}

/**
 * Inserts marks for these tokens of `month`, ignoring ones already present (no select first): for
 * tokens just created, and for marks a caller already knows are new to it.
 */
export async function insertActivity(
  trx: Kysely<Database>,
  tenantId: string,
  month: string,
  tokenIds: readonly string[],
): Promise<void> {
  const unique = [...new Set(tokenIds)];
  await insertRowsCompiled(
    trx,
    {
      key: 'token_activity:insert-or-ignore',
      columns: ['tenant_id', 'month', 'token_id'],
      chunk: CHUNK,
      template: { tenant_id: '', month: '', token_id: '' },
      // `on conflict do nothing`, which both SQLite and PostgreSQL accept.
      build: (rows) =>
        trx
          .insertInto('token_activity')
          .values(rows)
          .onConflict((c) => c.doNothing()),
    },
    unique.map((token_id) => ({ tenant_id: tenantId, month, token_id })),
  );
}

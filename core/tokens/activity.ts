/**
 * Monthly active tokens: a token counts once per calendar month (UTC)
 * when it is created, read (get, a list or search page) or used. One row per (tenant, month,
 * token); a row is inserted only when absent, checked with a select first, so repeated reads do
 * not journal a write each time.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';

/** `YYYY-MM` of an instant, in UTC. */
export function activityMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
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
        .execute();
    }
  }
}

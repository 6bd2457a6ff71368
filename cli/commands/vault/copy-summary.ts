import { totalRows, type RowCounts } from '../../../core/vault/row-counts.ts';

/** What export and import report of a copy. */
export interface CopyOutcome {
  readonly rows: RowCounts;
  readonly chains: { readonly ok: boolean; readonly tenants: number; readonly entries: number };
}

/** The chain figures as `--json` prints them. */
export function chainsJson(outcome: CopyOutcome): { ok: boolean; tenants: number; entries: number } {
  const { ok, tenants, entries } = outcome.chains;
  return { ok, tenants, entries };
}

/** "N tokens, M rows in all (counts checked), audit chains verified (…)": the copy's one-line result. */
export function copySummary(outcome: CopyOutcome): string {
  const tokens = outcome.rows.tokens ?? 0;
  const { entries, tenants } = outcome.chains;
  return `${tokens} tokens, ${totalRows(outcome.rows)} rows in all (counts checked), audit chains verified (${entries} entries in ${tenants} tenants)`;
}

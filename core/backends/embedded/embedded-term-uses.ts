import type { Database as SqlJsDatabase } from 'sql.js';
import { AUTHENTICATED_TABLES } from '../../integrity/row-authenticator.ts';
import { assertOnlyActiveTermInUse } from '../../vault/barrier.ts';

/**
 * Refuses to retire key terms while anything in the embedded file still names one of them: wrapped
 * tenant keys, token envelopes and row MACs each carry the term they were made under.
 */
export function assertEmbeddedTermsRetirable(sqlite: SqlJsDatabase, active: number): void {
  const count = (query: string, params: (string | number)[]) =>
    Number(sqlite.exec(query, params)[0]?.values[0]?.[0] ?? 0);
  const keys = count('SELECT count(*) FROM tenant_keys WHERE term <> ?', [active]);
  const envelopes = count('SELECT count(*) FROM tokens WHERE data NOT LIKE ?', [`v1.${active}.%`]);
  let macs = 0;
  for (const table of AUTHENTICATED_TABLES) {
    macs += count(`SELECT count(*) FROM ${table} WHERE row_mac NOT LIKE ?`, [`v1.${active}.%`]);
  }
  assertOnlyActiveTermInUse(keys, envelopes, macs);
}

/**
 * Rows of `tenants` as the services act on them: each load verified against its MAC (the owner and
 * the settings decide what the vault does for the tenant); changes go through
 * `updateAuthenticatedRow`, which stores a new MAC.
 */
import type { Kysely, Selectable } from 'kysely';
import { verified } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { VaultError } from '../errors/catalogue.ts';
import { compileOnce, runCompiled } from '../storage/compiled-queries.ts';
import type { Database, TenantsTable } from '../storage/schema.ts';
import { parseSettings } from './settings.ts';

export type TenantRow = Selectable<TenantsTable>;

/** The tenant's row, verified (INTEGRITY_FAILED when its MAC fails), or undefined. */
export async function findTenantRow(
  db: Kysely<Database>,
  keys: RowKeys,
  id: string,
): Promise<TenantRow | undefined> {
  // Compiled once: every token write reads its tenant's settings.
  const query = compileOnce(db, 'tenants:by-id', 1, () =>
    db.selectFrom('tenants').selectAll().where('id', '=', ''),
  );
  const row = (await runCompiled(db, query, [id])).rows[0];
  return verified(keys, 'tenants', row);
}

/** The tenant's settings; NOT_FOUND when the tenant does not exist (e.g. an operator's stale id). */
export async function tenantSettings(
  db: Kysely<Database>,
  keys: RowKeys,
  tenantId: string,
): Promise<Record<string, string>> {
  const row = await findTenantRow(db, keys, tenantId);
  if (!row) throw new VaultError('NOT_FOUND', 'No such tenant.');
  return parseSettings(row.settings);
}

import { randomUUID } from 'node:crypto';
import { VaultError } from '../errors/catalogue.ts';
import { generateApiKey } from '../crypto/api-key.ts';
import type { VaultHandle } from '../vault/types.ts';
import { permissionsFor } from '../access/permissions.ts';

const EMBEDDED_DEFAULT = 'embedded_default';

export interface BootstrapResult {
  readonly tenantId: string;
  readonly applicationId: string;
  /** Shown once; only its keyed hash is stored. */
  readonly apiKey: string;
}

export interface ApplicationSummary {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly type: string;
}

/**
 * The embedded default's first run: one tenant and a management application. Returns null when
 * the vault was bootstrapped before, so a second start never shows a key again.
 */
export async function bootstrapEmbeddedDefault(vault: VaultHandle): Promise<BootstrapResult | null> {
  return vault.transaction(async (trx) => {
    const done = await trx
      .selectFrom('vault_meta')
      .select('value')
      .where('key', '=', EMBEDDED_DEFAULT)
      .executeTakeFirst();
    if (done) return null;
    const now = vault.clock.now().toISOString();
    const tenantId = randomUUID();
    const applicationId = randomUUID();
    const apiKey = generateApiKey();
    await trx
      .insertInto('tenants')
      .values({
        id: tenantId,
        name: 'Default',
        settings: '{}',
        created_at: now,
        created_by: null,
        modified_at: null,
        modified_by: null,
      })
      .execute();
    await trx
      .insertInto('applications')
      .values({
        id: applicationId,
        tenant_id: tenantId,
        name: 'Management',
        type: 'management',
        key_hash: vault.hashApiKey(apiKey),
        permissions: JSON.stringify(permissionsFor('management')),
        rules: null,
        created_at: now,
        created_by: null,
        modified_at: null,
        modified_by: null,
      })
      .execute();
    await trx
      .insertInto('vault_meta')
      .values({
        key: EMBEDDED_DEFAULT,
        value: JSON.stringify({ tenant_id: tenantId, application_id: applicationId }),
      })
      .execute();
    return { tenantId, applicationId, apiKey };
  });
}

/** Issues a new key for an application; the old one stops working with this commit. */
export async function regenerateApplicationKey(
  vault: VaultHandle,
  applicationId: string,
): Promise<{ apiKey: string }> {
  return vault.transaction(async (trx) => {
    const apiKey = generateApiKey();
    const result = await trx
      .updateTable('applications')
      .set({ key_hash: vault.hashApiKey(apiKey), modified_at: vault.clock.now().toISOString() })
      .where('id', '=', applicationId)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new VaultError('NOT_FOUND', `No application ${applicationId}.`);
    return { apiKey };
  });
}

export async function listApplications(vault: VaultHandle): Promise<ApplicationSummary[]> {
  const rows = await vault.db
    .selectFrom('applications')
    .select(['id', 'tenant_id', 'name', 'type'])
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, name: r.name, type: r.type }));
}

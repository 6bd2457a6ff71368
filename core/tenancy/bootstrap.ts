import { VaultError } from '../errors/catalogue.ts';
import type { VaultHandle } from '../vault/types.ts';
import {
  APPLICATION_MESSAGES,
  auditApplication,
  findApplicationRow,
  replaceApplicationKey,
} from './application-store.ts';
import { FIRST_APPLICATION, insertTenant, operatorIn } from './tenants.ts';

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
 * The embedded default's first run: one tenant (no owner: the operator at the machine runs it)
 * and a management application, audited as the operator's. Returns null when the vault was
 * bootstrapped before, so a second start never shows a key again, and when the vault already has
 * tenants (made with `svc tenant create`): serving such a vault must not add a tenant nobody asked for.
 */
export async function bootstrapEmbeddedDefault(vault: VaultHandle): Promise<BootstrapResult | null> {
  return vault.transaction(async (trx) => {
    const done = await trx
      .selectFrom('vault_meta')
      .select('value')
      .where('key', '=', EMBEDDED_DEFAULT)
      .executeTakeFirst();
    if (done) return null;
    const existing = await trx.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
    if (existing) return null;
    const { tenant, application } = await insertTenant(trx, vault, null, {
      name: 'Default',
      ownerUserId: null,
      application: FIRST_APPLICATION,
    });
    if (!application) throw new Error('bootstrap: the first application was not created');
    await trx
      .insertInto('vault_meta')
      .values({
        key: EMBEDDED_DEFAULT,
        value: JSON.stringify({ tenant_id: tenant.id, application_id: application.id }),
      })
      .execute();
    return { tenantId: tenant.id, applicationId: application.id, apiKey: application.key };
  });
}

/** Issues a new key for an application (operator); the old one stops working with this commit. */
export async function regenerateApplicationKey(
  vault: VaultHandle,
  applicationId: string,
): Promise<{ apiKey: string }> {
  return vault.transaction(async (trx) => {
    const row = await findApplicationRow(trx, applicationId);
    if (!row) throw new VaultError('NOT_FOUND', `No application ${applicationId}.`);
    const { key } = await replaceApplicationKey(trx, vault, operatorIn(row.tenant_id), row);
    return { apiKey: key };
  });
}

/** Every application of the vault (operator view, `svc start`); each one's read is audited. */
export async function listApplications(vault: VaultHandle): Promise<ApplicationSummary[]> {
  return vault.transaction(async (trx) => {
    const rows = await trx
      .selectFrom('applications')
      .select(['id', 'tenant_id', 'name', 'type'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    for (const row of rows) {
      await auditApplication(trx, vault, operatorIn(row.tenant_id), row, 'read', APPLICATION_MESSAGES.read);
    }
    return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, name: r.name, type: r.type }));
  });
}

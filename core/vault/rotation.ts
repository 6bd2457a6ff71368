import { appendAudit } from '../audit/audit-log.ts';
import { TenantKeys } from '../crypto/tenant-keys.ts';
import { SealedText, reactorConfigurationContext } from '../crypto/sealed-text.ts';
import { ProxySecrets, SEALED_PROXY_FIELDS } from '../proxies/proxy-secrets.ts';
import { TokenCrypto } from '../tokens/token-crypto.ts';
import { updateAuthenticatedRow } from '../integrity/row-authenticator.ts';
import { moveRowMacsToActiveTerm } from '../integrity/stored-row-macs.ts';
import type { VaultHandle } from './types.ts';
import type { KeySource } from '../crypto/root-key.ts';

export interface RotationResult {
  /** The new active key term. */
  readonly term: number;
  /** Terms forgotten for good. */
  readonly retired: readonly number[];
  /** Token envelopes re-sealed under the new term. */
  readonly resealed: number;
  /** Proxies whose sealed fields (configuration, transforms) were re-sealed under the new term. */
  readonly resealedProxies: number;
  /** Reactors whose sealed configuration was re-sealed under the new term. */
  readonly resealedReactors: number;
  /** Row MACs moved to the new term (rows re-sealed above got theirs when they were written). */
  readonly rowMacs: number;
}

/** Envelopes re-sealed per transaction: bounded journal records, short turns on the vault's lock. */
const RESEAL_BATCH = 200;

/**
 * Key rotation: a new key term, everything moved under it, the old terms forgotten.
 * 1. A fresh term becomes active; a snapshot under it is written (new writes use it from here on:
 *    snapshot, journal, wrapped keys, and each tenant's fresh data key).
 * 2. Every token envelope under an older term is opened and sealed again with the tenant's new
 *    data key, in batches of transactions; so is every proxy's and reactor's sealed configuration
 *    (and proxy transform code).
 * 3. Every row MAC is moved to the new term's row key, each row verified first (a row changed
 *    outside the vault stops the rotation with INTEGRITY_FAILED: it is never vouched for again).
 * 4. Fingerprint and search keys are re-wrapped under the new term (the same keys, so fingerprints
 *    and blind indexes stay valid); the wrapped keys of older terms are deleted; each tenant's audit
 *    log gets an entry.
 * 5. The older terms are removed from the keyring and a snapshot is written without them.
 * A crash at any step leaves a vault that opens; running the rotation again finishes the job
 * (under yet another term).
 */
export async function rotateKeys(vault: VaultHandle, key: KeySource): Promise<RotationResult> {
  const term = await vault.addKeyTerm(key);
  const keys = new TenantKeys(vault);
  const crypto = new TokenCrypto(keys);
  let resealed = 0;
  for (;;) {
    const done = await vault.transaction(async (trx) => {
      const batch = await trx
        .selectFrom('tokens')
        .select(['row_id', 'tenant_id', 'id', 'data'])
        .where('data', 'not like', `v1.${term}.%`)
        .orderBy('row_id')
        .limit(RESEAL_BATCH)
        .execute();
      for (const row of batch) {
        const next = await crypto.reseal(trx, row.tenant_id, row.id, row.data);
        if (next === null) continue;
        await trx.updateTable('tokens').set({ data: next }).where('row_id', '=', row.row_id).execute();
        resealed++;
      }
      return batch.length === 0;
    });
    if (done) break;
  }
  const resealedProxies = await resealProxies(vault, keys);
  const resealedReactors = await resealReactors(vault, keys);
  const rowMacs = await moveRowMacsToActiveTerm(vault);
  await vault.transaction(async (trx) => {
    await keys.adoptActiveTerm(trx);
    // Each tenant's log records that its data moved to new keys (by the system: no principal).
    const tenants = await trx.selectFrom('tenants').select('id').execute();
    for (const { id } of tenants) {
      await appendAudit(trx, vault, null, {
        tenantId: id,
        entityType: 'tenant',
        entityId: id,
        operation: 'update',
        message: `Keys rotated to key term ${term}`,
      });
    }
  });
  const retired = await vault.retireOldKeyTerms(key);
  return { term, retired, resealed, resealedProxies, resealedReactors, rowMacs };
}

/** Reactors are few: one transaction re-seals them all (and seals rows stored before sealing). */
async function resealReactors(vault: VaultHandle, keys: TenantKeys): Promise<number> {
  const sealed = new SealedText(keys);
  return vault.transaction(async (trx) => {
    let changed = 0;
    const rows = await trx.selectFrom('reactors').selectAll().execute();
    for (const row of rows) {
      const next = await sealed.reseal(
        trx,
        row.tenant_id,
        reactorConfigurationContext(row.id),
        row.configuration,
      );
      if (next === null) continue;
      await updateAuthenticatedRow(trx, vault, 'reactors', row, { configuration: next });
      changed++;
    }
    return changed;
  });
}

/** Proxies are few: one transaction re-seals them all (and seals rows stored before sealing). */
async function resealProxies(vault: VaultHandle, keys: TenantKeys): Promise<number> {
  const secrets = new ProxySecrets(keys);
  return vault.transaction(async (trx) => {
    let changed = 0;
    const rows = await trx.selectFrom('proxies').selectAll().execute();
    for (const row of rows) {
      const changes: Partial<Record<(typeof SEALED_PROXY_FIELDS)[number], string>> = {};
      for (const field of SEALED_PROXY_FIELDS) {
        const stored = row[field];
        if (stored === null) continue;
        const next = await secrets.reseal(trx, row.tenant_id, row.id, field, stored);
        if (next !== null) changes[field] = next;
      }
      if (Object.keys(changes).length === 0) continue;
      await updateAuthenticatedRow(trx, vault, 'proxies', row, changes);
      changed++;
    }
    return changed;
  });
}

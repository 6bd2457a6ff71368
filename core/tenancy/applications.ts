import type { Kysely } from 'kysely';
import { authorize, authorizedLookup } from '../access/authorize.ts';
import { APPLICATION_TYPES } from '../access/permissions.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { looksLikeApiKey } from '../crypto/api-key.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { Page } from '../common-types.ts';
import type { Application, ApplicationService } from './contract.ts';
import { sweepExpiredRows } from '../storage/expiry-sweep.ts';
import type { Database } from '../storage/schema.ts';
import { FieldErrorCollector, checkPage } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import { checkApplicationUpdate, checkNewApplication, isApplicationType } from './application-input.ts';
import {
  APPLICATION_MESSAGES,
  applicationOf,
  auditApplication,
  findApplicationRow,
  grantColumns,
  insertApplication,
  replaceApplicationKey,
} from './application-store.ts';
import { updateAuthenticatedRow, verifiedRows } from '../integrity/row-authenticator.ts';
import { detachProxiesFrom } from '../proxies/proxy-store.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { ApplicationRow } from './application-store.ts';
import { assertMayCreate, assertMayGrant, assertNotOwnGrants } from './grant-ceiling.ts';
import { principalForKeyHash } from './api-key-cache.ts';

/** Page size cap of list endpoints. */
/** Applications per page, and ids per `id` filter. */
export const MAX_APPLICATION_PAGE_SIZE = 100;

function notFound(): VaultError {
  // The same detail as authorize()'s cross-tenant NOT_FOUND: the body must not tell the two apart.
  return new VaultError('NOT_FOUND', 'Not found.');
}

/** The application `id` for a permission. */
const loadFor = authorizedLookup(
  async (trx: Kysely<Database>, keys: RowKeys, id: string): Promise<ApplicationRow | undefined> =>
    typeof id === 'string' ? await findApplicationRow(trx, keys, id) : undefined,
  notFound,
);

/** The principal an API key stands for, or null. Not `async`: one promise fewer per request. */
export function authenticateApiKey(vault: VaultHandle, apiKey: string): Promise<Principal | null> {
  if (typeof apiKey !== 'string' || !looksLikeApiKey(apiKey)) return Promise.resolve(null);
  try {
    return principalForKeyHash(vault, vault.hashApiKey(apiKey));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Expired applications removed per transaction of the sweep. */
const SWEEP_BATCH = 100;

/**
 * Application management. Reads are audited too: a list writes one
 * `read` entry per application on the returned page, so filtering the log by an application's id
 * shows everyone who saw it.
 */
export function createApplicationService(vault: VaultHandle): ApplicationService {
  const get = (principal: Principal, id: string): Promise<Application> =>
    vault.transaction(async (trx) => {
      const row = await loadFor(principal, 'application:read', trx, vault, id);
      await auditApplication(trx, vault, principal, row, 'read', APPLICATION_MESSAGES.read);
      return applicationOf(row);
    });

  return {
    async create(principal, input) {
      authorize(principal, 'application:create');
      const checked = checkNewApplication(input, vault.clock.now());
      assertMayCreate(principal, checked.type, checked);
      return vault.transaction(async (trx) => {
        // An operator principal names its tenant directly; it may not exist (or no longer).
        const tenant = await trx
          .selectFrom('tenants')
          .select('id')
          .where('id', '=', principal.tenantId)
          .executeTakeFirst();
        if (!tenant) throw new VaultError('NOT_FOUND', 'No such tenant.');
        return insertApplication(trx, vault, principal, tenant.id, checked);
      });
    },

    async list(principal, filter, page) {
      authorize(principal, 'application:read');
      const { offset, limit } = checkPage(page, MAX_APPLICATION_PAGE_SIZE);
      const errors = new FieldErrorCollector();
      if (filter.types !== undefined && !filter.types.every(isApplicationType))
        errors.add('type', `must be one of ${APPLICATION_TYPES.join(', ')}`);
      // One SQL parameter each: keep well below SQLite's limit.
      if (filter.ids !== undefined && filter.ids.length > MAX_APPLICATION_PAGE_SIZE)
        errors.add('id', `at most ${MAX_APPLICATION_PAGE_SIZE} ids`);
      errors.throwIfAny();
      return vault.transaction(async (trx): Promise<Page<Application>> => {
        let query = trx.selectFrom('applications').where('tenant_id', '=', principal.tenantId);
        if (filter.ids !== undefined && filter.ids.length > 0)
          query = query.where('id', 'in', [...filter.ids]);
        if (filter.types !== undefined && filter.types.length > 0)
          query = query.where('type', 'in', [...filter.types]);
        const count = await query.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        const rows = verifiedRows(
          vault,
          'applications',
          await query.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
        );
        for (const row of rows)
          await auditApplication(trx, vault, principal, row, 'read', APPLICATION_MESSAGES.read);
        return { total: Number(count.n), items: rows.map(applicationOf) };
      });
    },

    get,

    // "Who am I": any application may read itself, whatever it was granted; it learns nothing it
    // did not present (its key is never part of an Application).
    async getSelf(principal) {
      if (principal.kind !== 'application') {
        throw new VaultError('NOT_FOUND', 'The caller is not an application: no API key was presented.');
      }
      return vault.transaction(async (trx) => {
        const row = await findApplicationRow(trx, vault, principal.applicationId);
        if (!row || row.tenant_id !== principal.tenantId) throw notFound();
        await auditApplication(trx, vault, principal, row, 'read', APPLICATION_MESSAGES.read);
        return applicationOf(row);
      });
    },

    async update(principal, id, input) {
      return vault.transaction(async (trx) => {
        const row = await loadFor(principal, 'application:update', trx, vault, id);
        const current = applicationOf(row);
        const checked = checkApplicationUpdate(current.type, input);
        const held = { ...current, canCreateExpiring: current.can_create_expiring_applications };
        assertNotOwnGrants(principal, row.id, held, checked);
        assertMayGrant(principal, checked);
        const updated = await updateAuthenticatedRow(trx, vault, 'applications', row, {
          name: checked.name,
          ...grantColumns(checked),
          can_create_expiring_applications: checked.canCreateExpiring ? 1 : 0,
          modified_at: vault.clock.now().toISOString(),
          modified_by: actorOf(principal).actor_id,
        });
        await auditApplication(trx, vault, principal, row, 'update', APPLICATION_MESSAGES.update);
        return applicationOf(updated);
      });
    },

    async delete(principal, id) {
      await vault.transaction(async (trx) => {
        const row = await loadFor(principal, 'application:delete', trx, vault, id);
        await detachProxiesFrom(trx, vault, row);
        await trx.deleteFrom('applications').where('id', '=', row.id).execute();
        await auditApplication(trx, vault, principal, row, 'delete', APPLICATION_MESSAGES.delete);
      });
    },

    async regenerate(principal, id) {
      return vault.transaction(async (trx) => {
        // Regenerating is an update of the application.
        const row = await loadFor(principal, 'application:update', trx, vault, id);
        // A new key is the application's grants in the caller's hands.
        const app = applicationOf(row);
        assertMayGrant(principal, { ...app, canCreateExpiring: app.can_create_expiring_applications });
        return replaceApplicationKey(trx, vault, principal, row);
      });
    },

    // Expired keys are refused at authentication already; this removes their rows for good. Rows
    // are deleted by `expires_at` alone, unverified: a forged expiry only deletes a row, which
    // whoever can forge it can do directly, and a refused row must not stop every other expiry.
    sweepExpired() {
      return sweepExpiredRows(vault, {
        table: 'applications',
        batch: SWEEP_BATCH,
        async remove(trx, row) {
          await detachProxiesFrom(trx, vault, row);
          await trx.deleteFrom('applications').where('id', '=', row.id).execute();
          await auditApplication(trx, vault, null, row, 'delete', APPLICATION_MESSAGES.expired);
        },
      });
    },
  };
}

import type { Principal } from '../access/principal.ts';
import { isVaultError } from '../errors/catalogue.ts';
import { createServices, outboxTenancyOptions } from '../services.ts';
import type { ServiceInternals } from '../services.ts';
import type { ServiceOptions, Services } from '../services-contract.ts';
import type { AuditLogsTable } from '../storage/schema.ts';
import { ManualClock } from '../vault/clock.ts';
import type { VaultHandle } from '../vault/types.ts';
import { FAST_KDF } from './temp-vault.ts';
import type { TempDir } from './temp-vault.ts';
import { createTestVault } from './test-vault.ts';

export { testBackend, type TestBackend } from './test-vault.ts';

/**
 * A real vault on the test backend (createTestVault: a temp file without fsync, or a fresh schema
 * on PostgreSQL) with services over it, fast password hashing and a clock tests move.
 */
export interface ServicesFixture {
  readonly tmp: TempDir;
  readonly vault: VaultHandle;
  readonly clock: ManualClock;
  readonly services: Services;
  close(): Promise<void>;
}

export async function openServicesFixture(
  options: ServiceOptions = {},
  internals: ServiceInternals = {},
): Promise<ServicesFixture> {
  const clock = new ManualClock();
  const temp = await createTestVault({ clock });
  const { vault } = temp;
  const tmp: TempDir = {
    dir: temp.dir,
    vaultPath: temp.vaultPath,
    key: temp.key,
    cleanup: () => temp.dispose(),
  };
  // Mail goes to the temp folder's outbox, on either backend.
  const tenancy = outboxTenancyOptions(temp.dir);
  const services = createServices(vault, { passwordKdf: FAST_KDF, tenancy, ...options }, internals);
  return {
    tmp,
    vault,
    clock,
    services,
    close: () => temp.dispose(),
  };
}

/** The VaultError code a promise rejects with; 'ok' when it resolves. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (isVaultError(error)) return error.code;
    throw error;
  }
}

/** The field errors of a VALIDATION_FAILED rejection (throws on anything else). */
export async function fieldErrorsOf(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  try {
    await promise;
  } catch (error) {
    if (isVaultError(error, 'VALIDATION_FAILED') && error.errors) return error.errors;
    throw error;
  }
  throw new Error('expected VALIDATION_FAILED, but the call succeeded');
}

/** `CODE status: message` of the VaultError a promise rejects with; 'ok' when it resolves. */
export async function detailOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isVaultError(error)) return `${error.code} ${error.status}: ${error.message}`;
    throw error;
  }
  return 'ok';
}

/** A tenant with an owner (password set) and its first management application. */
export async function seedTenant(
  services: Services,
  name = 'Acme',
  ownerEmail = `owner-${name.toLowerCase()}@example.com`,
  ownerPassword = 'correct horse battery',
): Promise<{
  tenantId: string;
  ownerId: string;
  key: string;
  principal: Principal;
  ownerEmail: string;
  ownerPassword: string;
}> {
  const created = await services.tenants.create({ name, ownerEmail, ownerPassword }, null);
  if (!created.application || !created.owner) throw new Error('seedTenant: nothing created');
  const principal = await services.auth.authenticateApiKey(created.application.key);
  if (!principal) throw new Error('seedTenant: the new key does not authenticate');
  return {
    tenantId: created.tenant.id,
    ownerId: created.owner.id,
    key: created.application.key,
    principal,
    ownerEmail,
    ownerPassword,
  };
}

export type AuditRow = Omit<AuditLogsTable, 'prev_hash' | 'hash'>;

/** A tenant's chain in order (or every entry of the vault), wherever the vault keeps it. */
export async function auditRows(vault: VaultHandle, tenantId?: string): Promise<AuditRow[]> {
  const tenants = tenantId === undefined ? await vault.audit.tenants() : [tenantId];
  const rows: AuditRow[] = [];
  for (const tenant of tenants.sort()) {
    for await (const { prev_hash: _prev, hash: _hash, ...row } of vault.audit.entries(tenant)) rows.push(row);
  }
  return rows;
}

/** Entries of the vault, wherever it keeps them. */
export async function auditCount(vault: VaultHandle): Promise<number> {
  return vault.audit.count();
}

/**
 * An application that may create expiring ones (`creator`, token:read on every container), and an
 * expiring application it made (`expiring`, one rule for the token `tok`) that expires `ttlMs`
 * after the fixture clock's now.
 */
export async function createExpiringApplication(
  f: ServicesFixture,
  operator: Principal,
  ttlMs: number,
): Promise<{
  creator: Awaited<ReturnType<Services['applications']['create']>>;
  expiring: Awaited<ReturnType<Services['applications']['create']>>;
}> {
  const creator = await f.services.applications.create(operator, {
    name: 'creator',
    type: 'private',
    rules: [{ description: '', priority: 1, container: '/', permissions: ['token:read'], transform: 'mask' }],
    can_create_expiring_applications: true,
  });
  const creatorPrincipal = await f.services.auth.authenticateApiKey(creator.key);
  if (creatorPrincipal === null) throw new Error('creator key refused');
  const expiring = await f.services.applications.create(creatorPrincipal, {
    name: 'expiring',
    type: 'expiring',
    rules: [
      {
        description: '',
        priority: 1,
        container: '',
        permissions: ['token:read'],
        transform: 'mask',
        conditions: [{ attribute: 'id', operator: 'equals', value: 'tok' }],
      },
    ],
    expires_at: new Date(f.clock.now().getTime() + ttlMs).toISOString(),
  });
  return { creator, expiring };
}

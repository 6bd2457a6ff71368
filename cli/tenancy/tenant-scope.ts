import type { ResolvedConfig } from '../../core/config/index.ts';
import { operatorIn, type Principal } from '../../core/access/principal.ts';
import { isVaultError, VaultError } from '../../core/errors/catalogue.ts';
import { didYouMeanSuffix } from '../../core/validation/suggest.ts';
import type { Application, Tenant } from '../../core/services-contract.ts';
import type { CliKeyFlags } from '../options/config-flags.ts';
import type { CliDeps } from '../runtime/deps.ts';
import type { CliServices } from '../services/contract.ts';
import { withServices } from '../services/with-services.ts';

/** The CLI holds the vault key, so it acts in a tenant as that tenant's operator. */
export { operatorIn };

export interface TenantScope {
  readonly services: CliServices;
  readonly tenant: Tenant;
  /** The operator of the tenant: every permission; every action audited. */
  readonly principal: Principal;
}

/**
 * The one way a command acts in a tenant: the services (wherever the vault is), the tenant of
 * --tenant (or the vault's only one), and its operator principal.
 */
export function inTenant<T>(
  deps: CliDeps,
  resolved: ResolvedConfig,
  flags: CliKeyFlags,
  requested: string | undefined,
  fn: (scope: TenantScope) => Promise<T>,
): Promise<T> {
  return withServices(deps, resolved, flags, async (services) => {
    const tenant = await resolveTenant(services, requested);
    return fn({ services, tenant, principal: operatorIn(tenant.id) });
  });
}

/** What tenant lookups need of the services: both kinds have it. */
type TenantLookup = Pick<CliServices, 'tenants'>;

/** "3f2c… (Acme), 9b1d… (Default)": what a person needs to pick one with --tenant. */
export function describeTenants(tenants: readonly Pick<Tenant, 'id' | 'name'>[]): string {
  return tenants.map((t) => `${t.id} (${t.name})`).join(', ');
}

/** Tenants by name: the exact name, else the name in any letter case. */
function tenantsNamed(tenants: readonly Tenant[], name: string): Tenant[] {
  const exact = tenants.filter((t) => t.name === name);
  if (exact.length > 0) return exact;
  const lower = name.toLowerCase();
  return tenants.filter((t) => t.name.toLowerCase() === lower);
}

const NO_TENANTS = "this vault has no tenants yet; create one with 'svc tenant create' (or run 'svc start')";

/**
 * The tenant a command acts in: `--tenant <id>` when given, else the vault's only tenant. With
 * none or several, a usage error (exit 2) that lists the choices.
 *
 * Core audits reads: naming a tenant records one read in that tenant's log; choosing the only one
 * lists them all, which records a read in each (there is just one in the case that succeeds).
 */
export async function resolveTenant(services: TenantLookup, requested: string | undefined): Promise<Tenant> {
  if (requested !== undefined) {
    try {
      return await services.tenants.get(operatorIn(requested));
    } catch (error) {
      if (!isVaultError(error, 'NOT_FOUND')) throw error;
    }
    const tenants = await services.tenants.listAll();
    const named = tenantsNamed(tenants, requested);
    const [match] = named;
    if (match !== undefined && named.length === 1) return match;
    if (named.length > 1) {
      throw new VaultError(
        'USAGE',
        `${named.length} tenants are named ${requested}; pass --tenant <id> with one of: ${describeTenants(named)}`,
      );
    }
    const choices = tenants.length === 0 ? 'it has none' : `its tenants: ${describeTenants(tenants)}`;
    const near = didYouMeanSuffix(
      requested,
      tenants.map((t) => t.name),
    );
    throw new VaultError('NOT_FOUND', `no tenant ${requested} in this vault${near}; ${choices}`);
  }
  const tenants = await services.tenants.listAll();
  const [only] = tenants;
  if (only !== undefined && tenants.length === 1) return only;
  if (only === undefined) throw new VaultError('USAGE', NO_TENANTS);
  throw new VaultError(
    'USAGE',
    `this vault has ${tenants.length} tenants; pass --tenant <id-or-name> or choose one with 'svc tenant use' (or set SVC_TENANT); its tenants: ${describeTenants(tenants)}`,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A tenant by name or id for the commands that also reach a deleted tenant's audit log (verify,
 * prune): a name must name an existing tenant; an id passes as it is (lower case), since the log of
 * a deleted tenant outlives it.
 */
export async function resolveTenantOrId(services: TenantLookup, requested: string): Promise<{ id: string }> {
  if (UUID.test(requested)) return { id: requested.toLowerCase() };
  return resolveTenant(services, requested);
}

/**
 * Runs `fn`; a bare "Not found." from the services becomes `message` (which names the thing, where it
 * was looked for and how to list what exists). Errors that already say more pass through.
 */
export async function orNotFound<T>(message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isVaultError(error, 'NOT_FOUND') && error.message === error.title) {
      throw new VaultError('NOT_FOUND', message, { cause: error });
    }
    throw error;
  }
}

export const noToken = (id: string): string => `no token ${id} in this tenant (see 'svc token list')`;
export const noInvitation = (id: string): string =>
  `no invitation ${id} in this tenant (see 'svc invitation list')`;

/**
 * Something whose id is unique in the vault, looked up in the named tenant, or without `--tenant`
 * in every tenant in turn (as application ids are): `get` throws NOT_FOUND where it is not.
 */
export async function findInTenants<T>(
  services: TenantLookup,
  requestedTenant: string | undefined,
  get: (principal: Principal, tenant: Tenant) => Promise<T>,
  notFound: string,
): Promise<T> {
  const tenants =
    requestedTenant === undefined
      ? await services.tenants.listAll()
      : [await resolveTenant(services, requestedTenant)];
  for (const tenant of tenants) {
    try {
      return await get(operatorIn(tenant.id), tenant);
    } catch (error) {
      if (!isVaultError(error, 'NOT_FOUND')) throw error;
    }
  }
  throw new VaultError('NOT_FOUND', notFound);
}

export interface FoundApplication {
  readonly tenant: Tenant;
  readonly principal: Principal;
  readonly application: Application;
}

/**
 * An application by id. Its id already names its tenant, so without `--tenant` every tenant is
 * searched: `svc app regenerate <id>` (the hint `svc start` prints) works in any vault.
 */
export async function findApplication(
  services: TenantLookup & Pick<CliServices, 'applications'>,
  id: string,
  requestedTenant: string | undefined,
): Promise<FoundApplication> {
  const where = requestedTenant === undefined ? 'this vault' : `tenant ${requestedTenant}`;
  return findInTenants(
    services,
    requestedTenant,
    async (principal, tenant) => ({
      tenant,
      principal,
      application: await services.applications.get(principal, id),
    }),
    `no application ${id} in ${where} (see 'svc app list')`,
  );
}

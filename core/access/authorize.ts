import { VaultError } from '../errors/catalogue.ts';
import { MANAGEMENT_PERMISSIONS, isTokenPermission, type Permission } from './permissions.ts';
import type { TokenRef } from './conditions.ts';
import type { Principal } from './principal.ts';
import { decide, grantsAnywhere } from './rules.ts';
import type { Grants, Transform } from './rules.ts';

/** A resource being acted on: only its tenant matters for the coarse check. */
export interface ResourceRef {
  readonly tenantId: string;
}

const MANAGEMENT = new Set(MANAGEMENT_PERMISSIONS);

function grantsOf(principal: Principal): Grants | 'all' | 'management' {
  switch (principal.kind) {
    case 'application':
      return principal;
    case 'user':
      return 'management';
    case 'operator':
      return 'all';
  }
}

/**
 * The one decision point. Throws NOT_FOUND for a resource of another tenant (its existence is
 * never revealed) and FORBIDDEN when the principal lacks the permission. For token permissions
 * this is the coarse check ("anywhere"); `transformFor` decides per container.
 */
export function authorize(principal: Principal, permission: Permission, resource?: ResourceRef): void {
  const refused = refusal(principal, permission, resource);
  if (refused === 'NOT_FOUND') throw new VaultError('NOT_FOUND', 'Not found.');
  if (refused === 'FORBIDDEN')
    throw new VaultError('FORBIDDEN', `The caller does not have the '${permission}' permission.`);
}

/**
 * `find` behind `permission`: a tenant's row. The permission is checked before anything is looked
 * up, so a caller without it learns nothing about ids; with it, another tenant's row is NOT_FOUND
 * exactly like a missing one (`notFound`).
 */
export function authorizedLookup<Args extends readonly unknown[], Row extends { readonly tenant_id: string }>(
  find: (...args: Args) => Promise<Row | undefined>,
  notFound: () => VaultError,
): (principal: Principal, permission: Permission, ...args: Args) => Promise<Row> {
  return async (principal, permission, ...args) => {
    authorize(principal, permission);
    const row = await find(...args);
    if (!row) throw notFound();
    authorize(principal, permission, { tenantId: row.tenant_id });
    return row;
  };
}

/** What `authorize` decides, without building an error: `can` runs on every view of a page. */
function refusal(
  principal: Principal,
  permission: Permission,
  resource?: ResourceRef,
): 'NOT_FOUND' | 'FORBIDDEN' | null {
  if (resource && resource.tenantId !== principal.tenantId) return 'NOT_FOUND';
  const grants = grantsOf(principal);
  const allowed =
    grants === 'all' ||
    (grants === 'management' ? MANAGEMENT.has(permission) : grantsAnywhere(grants, permission)) ||
    (permission === 'application:create' && isExpiringCreator(principal));
  return allowed ? null : 'FORBIDDEN';
}

/**
 * A private key whose application has `can_create_expiring_applications` passes the coarse
 * `application:create` check; creating then accepts from it only `type: "expiring"`, with grants
 * within its own (core/tenancy/grant-ceiling.ts).
 */
export function isExpiringCreator(principal: Principal): boolean {
  return (
    principal.kind === 'application' &&
    principal.applicationType === 'private' &&
    principal.canCreateExpiringApplications === true
  );
}

/** Whether `authorize` would pass, for UIs and listings. */
export function can(principal: Principal, permission: Permission, resource?: ResourceRef): boolean {
  return refusal(principal, permission, resource) === null;
}

/**
 * How data of `token` (its container, and its id where there is one: conditioned rules match on
 * it) must be shown to `principal` for `permission`: reveal, mask or redact. A bare container is a
 * token without an id. Throws FORBIDDEN when no rule or permission covers the token. A caller that
 * asks for masked views (`principal.view`) gets mask where its grants reveal.
 */
export function transformFor(
  principal: Principal,
  permission: Permission,
  token: string | TokenRef,
): Transform {
  const granted = grantedTransform(principal, permission, token);
  return principal.view === 'mask' && granted === 'reveal' ? 'mask' : granted;
}

/**
 * The transform the grants give, whatever view the caller asked for: for decisions that depend on
 * what the caller may see rather than on what it is shown (changing a mask needs reveal).
 */
export function grantedTransform(
  principal: Principal,
  permission: Permission,
  token: string | TokenRef,
): Transform {
  const target: TokenRef = typeof token === 'string' ? { container: token } : token;
  const container = target.container;
  const grants = grantsOf(principal);
  if (grants === 'all') return 'reveal';
  if (grants === 'management' || !isTokenPermission(permission)) {
    throw new VaultError('FORBIDDEN', `The caller does not have the '${permission}' permission.`);
  }
  const decision = decide(grants, permission, target);
  if (!decision.allowed) {
    throw new VaultError(
      'FORBIDDEN',
      `The caller does not have the '${permission}' permission on ${container}.`,
    );
  }
  return decision.transform;
}

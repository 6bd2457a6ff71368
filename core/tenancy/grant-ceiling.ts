import { isExpiringCreator } from '../access/authorize.ts';
import { reachOf } from '../access/conditions.ts';
import type { ContainerReach } from '../access/conditions.ts';
import { MANAGEMENT_PERMISSIONS, isTokenPermission } from '../access/permissions.ts';
import type { ApplicationType } from '../access/permissions.ts';
import type { Principal } from '../access/principal.ts';
import {
  IMPLICIT_TRANSFORMS,
  decide,
  isConditioned,
  leastTransformOver,
  showsNoMoreThan,
} from '../access/rules.ts';
import type { AccessRule, Grants, Transform } from '../access/rules.ts';
import { VaultError } from '../errors/catalogue.ts';

export interface GrantSet {
  readonly permissions: readonly string[];
  readonly rules: readonly AccessRule[];
  /** Letting a private application create expiring ones is a grant too. */
  readonly canCreateExpiring?: boolean;
}

/**
 * A key holding every management permission administers its tenant: with `tenant:invitation:create`
 * and the member permissions it could invite an address it controls and act as an ADMIN member, so
 * bounding it further would only be a detour. Tenant members and the operator are administrators too.
 */
function isAdministrator(principal: Principal): boolean {
  if (principal.kind !== 'application') return true;
  return MANAGEMENT_PERMISSIONS.every((p) => principal.permissions.includes(p));
}

/**
 * The rule against escalation: a caller cannot hand out more than it holds. An administrator may
 * grant anything within its tenant; any other application key may grant only plain permissions it
 * holds itself and no access rules (an application that manages others holds no token access, so
 * it has none to pass on). Throws FORBIDDEN naming the first grant it may not give.
 */
export function assertMayGrant(principal: Principal, grants: GrantSet): void {
  if (principal.kind !== 'application' || isAdministrator(principal)) return;
  const held = new Set(principal.permissions);
  const missing = grants.permissions.find((p) => !held.has(p));
  if (missing !== undefined)
    throw new VaultError(
      'FORBIDDEN',
      `The caller cannot grant '${missing}': an application may only grant permissions it holds itself.`,
    );
  if (grants.rules.length > 0)
    throw new VaultError(
      'FORBIDDEN',
      'The caller cannot grant access rules: only a tenant administrator may grant token access.',
    );
  if (grants.canCreateExpiring === true)
    throw new VaultError(
      'FORBIDDEN',
      'The caller cannot let an application create expiring applications: only a tenant administrator may.',
    );
}

const EVERYWHERE: ContainerReach = { kind: 'prefix', prefix: '/' };

function assertWithin(
  creator: Principal & { kind: 'application' },
  permission: string,
  reach: ContainerReach,
  transform: Transform,
): void {
  const least = leastTransformOver(creator, permission, reach);
  if (least === null || !showsNoMoreThan(transform, least)) {
    throw new VaultError(
      'FORBIDDEN',
      `The caller cannot grant '${permission}' with ${transform} there: an expiring application gets at most ` +
        'the token access of the application creating it.',
    );
  }
}

/**
 * Who may create an application of `type`. Expiring applications are created only by a private
 * key whose application may create them, and get at most that key's own token access: every plain
 * permission and every rule must show no more, on every token it can reach, than the creator's
 * grants show there. Such a key creates nothing else; everyone else follows assertMayGrant.
 */
export function assertMayCreate(principal: Principal, type: ApplicationType, grants: GrantSet): void {
  if (type !== 'expiring') {
    if (isExpiringCreator(principal))
      throw new VaultError('FORBIDDEN', 'This key may create expiring applications only.');
    assertMayGrant(principal, grants);
    return;
  }
  if (principal.kind !== 'application' || !isExpiringCreator(principal))
    throw new VaultError(
      'FORBIDDEN',
      'Only a private application allowed to create expiring applications (can_create_expiring_applications) may create them.',
    );
  for (const permission of grants.permissions)
    assertWithin(principal, permission, EVERYWHERE, IMPLICIT_TRANSFORMS[permission] ?? 'redact');
  for (const rule of grants.rules) {
    const reach = reachOf(rule.conditions ?? []);
    for (const permission of rule.permissions) assertWithin(principal, permission, reach, rule.transform);
  }
}

function sameGrants(a: GrantSet, b: GrantSet): boolean {
  const permissions = (g: GrantSet) => JSON.stringify([...g.permissions].sort());
  const rules = (g: GrantSet) =>
    JSON.stringify(
      [...g.rules]
        .sort((x, y) => x.priority - y.priority)
        .map((r) => [
          r.priority,
          r.container,
          r.transform,
          [...r.permissions].sort(),
          r.description,
          r.conditions ?? [],
        ]),
    );
  return (
    permissions(a) === permissions(b) &&
    rules(a) === rules(b) &&
    (a.canCreateExpiring ?? false) === (b.canCreateExpiring ?? false)
  );
}

/** An application may rename itself, but never change its own grants (not even an administrator key). */
export function assertNotOwnGrants(
  principal: Principal,
  applicationId: string,
  current: GrantSet,
  next: GrantSet,
): void {
  if (principal.kind !== 'application' || principal.applicationId !== applicationId) return;
  if (!sameGrants(current, next))
    throw new VaultError('FORBIDDEN', 'An application cannot change its own permissions or rules.');
}

/** A container no rule names (none contains a NUL): it stands for every container that only rules above it decide. */
const UNNAMED = `/${'\u0000'}`;

/**
 * Whether `caller` holds at least `application`'s access. Both decide by container (plain
 * permissions and container rules) or by conditions; a container's decision depends only on which
 * named containers cover it, so the containers named by either side, plus one no rule names, stand
 * for every container. A conditioned rule of the application is checked over every container its
 * conditions can reach; the caller's own conditioned rules are left out (they cover named tokens).
 */
function holdsAtLeast(caller: Grants, application: Grants): boolean {
  const held = new Set(caller.permissions);
  if (application.permissions.some((p) => !isTokenPermission(p) && !held.has(p))) return false;
  const byContainer: Grants = {
    permissions: application.permissions.filter(isTokenPermission),
    rules: application.rules.filter((r) => !isConditioned(r)),
  };
  const containers = new Set([
    ...byContainer.rules.map((r) => r.container),
    ...caller.rules.filter((r) => !isConditioned(r)).map((r) => r.container),
    UNNAMED,
  ]);
  const permissions = new Set([
    ...byContainer.permissions,
    ...byContainer.rules.flatMap((r) => r.permissions),
  ]);
  for (const permission of permissions) {
    for (const container of containers) {
      const granted = decide(byContainer, permission, { container });
      if (!granted.allowed) continue;
      const least = leastTransformOver(caller, permission, { kind: 'exactly', container });
      if (least === null || !showsNoMoreThan(granted.transform, least)) return false;
    }
  }
  for (const rule of application.rules.filter(isConditioned)) {
    const reach = reachOf(rule.conditions ?? []);
    for (const permission of rule.permissions) {
      const least = leastTransformOver(caller, permission, reach);
      if (least === null || !showsNoMoreThan(rule.transform, least)) return false;
    }
  }
  return true;
}

/** The refusal of an attach, the same whether the application is out of reach, of the wrong type or unknown. */
export function attachRefused(): VaultError {
  return new VaultError(
    'FORBIDDEN',
    "The caller cannot attach this application: a proxy or reactor acts with its application's " +
      'token access, so attaching one, or changing a proxy or reactor that runs as one, needs at least that ' +
      'access (every permission, container by container, transform by transform).',
  );
}

/**
 * Attaching is granting. A proxy or reactor acts with its application's token access for whoever
 * calls it (for anyone holding the key of a proxy without `require_auth`), and its code and
 * configuration decide what that access is used for and where results go. So naming an application
 * there, and changing anything of a proxy or reactor that runs as one, needs at least that
 * application's token access: every permission it holds, in every container, showing no more than
 * the caller's own grants show there. Administrators (as assertMayGrant defines them) pass: they
 * could make such an application themselves. Throws FORBIDDEN (attachRefused) otherwise.
 */
export function assertMayAttach(principal: Principal, application: Grants): void {
  if (principal.kind !== 'application' || isAdministrator(principal)) return;
  if (!holdsAtLeast(principal, application)) throw attachRefused();
}

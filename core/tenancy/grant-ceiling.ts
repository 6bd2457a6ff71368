import { MANAGEMENT_PERMISSIONS } from '../access/permissions.ts';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import { VaultError } from '../errors/catalogue.ts';

export interface GrantSet {
  readonly permissions: readonly string[];
  readonly rules: readonly AccessRule[];
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
}

function sameGrants(a: GrantSet, b: GrantSet): boolean {
  const permissions = (g: GrantSet) => JSON.stringify([...g.permissions].sort());
  const rules = (g: GrantSet) =>
    JSON.stringify(
      [...g.rules]
        .sort((x, y) => x.priority - y.priority)
        .map((r) => [r.priority, r.container, r.transform, [...r.permissions].sort(), r.description]),
    );
  return permissions(a) === permissions(b) && rules(a) === rules(b);
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

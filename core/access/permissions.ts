/** Application types and the permissions each may hold. */
export const APPLICATION_TYPES = ['private', 'public', 'management', 'expiring'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];
/** The types an administrator creates directly: expiring applications come from private keys only. */
export const ADMINISTERED_APPLICATION_TYPES: readonly ApplicationType[] = APPLICATION_TYPES.filter(
  (t) => t !== 'expiring',
);

export interface PermissionDefinition<T extends string = Permission> {
  readonly type: T;
  readonly description: string;
  readonly application_types: readonly ApplicationType[];
}

const define = <const T extends string>(
  type: T,
  description: string,
  ...application_types: ApplicationType[]
): PermissionDefinition<T> => ({
  type,
  description,
  application_types,
});

/** The permission catalogue served by `GET /permissions`. */
export const PERMISSIONS = [
  define('token:create', 'Create tokens (per container)', 'public', 'private'),
  define('token:update', 'Update tokens (per container)', 'public', 'private'),
  define(
    'token:read',
    'Read tokens (per container; the rule transform decides what data is shown)',
    'private',
    'expiring',
  ),
  define('token:search', 'Search tokens (per container)', 'private'),
  define('token:delete', 'Delete tokens (per container)', 'private'),
  define('token:use', 'Use token data in proxies and reactors (per container)', 'private'),
  define('tenant:read', 'Read the tenant', 'management'),
  define('tenant:update', 'Update the tenant and its settings', 'management'),
  define('tenant:delete', 'Delete the tenant and all its data', 'management'),
  define('application:read', 'Read applications', 'management'),
  define('application:create', 'Create applications', 'management'),
  define('application:update', 'Update applications and regenerate their keys', 'management'),
  define('application:delete', 'Delete applications', 'management'),
  define('log:read', 'Read the audit log', 'management'),
  define('reactor:read', 'Read reactor formulas and reactors', 'management'),
  define('reactor:create', 'Create reactor formulas and reactors', 'management'),
  define('reactor:update', 'Update reactor formulas and reactors', 'management'),
  define('reactor:delete', 'Delete reactor formulas and reactors', 'management'),
  define('proxy:read', 'Read proxies', 'management'),
  define('proxy:create', 'Create proxies', 'management'),
  define('proxy:update', 'Update proxies', 'management'),
  define('proxy:delete', 'Delete proxies', 'management'),
  define('tenant:member:read', 'Read tenant members', 'management'),
  define('tenant:member:update', 'Update tenant members', 'management'),
  define('tenant:member:delete', 'Remove tenant members', 'management'),
  define('tenant:invitation:create', 'Invite people to the tenant', 'management'),
  define('tenant:invitation:read', 'Read invitations', 'management'),
  define('tenant:invitation:update', 'Resend invitations', 'management'),
  define('tenant:invitation:delete', 'Delete invitations', 'management'),
  define('report:read', 'Read usage reports', 'management'),
] as const;

/** A permission name of the catalogue: a typo is a compile error. */
export type Permission = (typeof PERMISSIONS)[number]['type'];

const BY_NAME = new Map<string, PermissionDefinition>(PERMISSIONS.map((p) => [p.type, p]));

export function isPermission(name: string): name is Permission {
  return BY_NAME.has(name);
}

export function permissionAllowedFor(name: string, type: ApplicationType): boolean {
  return BY_NAME.get(name)?.application_types.includes(type) ?? false;
}

export function permissionsFor(type: ApplicationType): Permission[] {
  return PERMISSIONS.filter((p) => p.application_types.includes(type)).map((p) => p.type);
}

/** Permissions whose checks are scoped by container and carry a data transform. */
export function isTokenPermission(name: string): boolean {
  return name.startsWith('token:');
}

/** Everything a management application may hold: what tenant OWNER and ADMIN members get. */
export const MANAGEMENT_PERMISSIONS: readonly Permission[] = permissionsFor('management');

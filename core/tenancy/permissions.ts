/** Application types and the permissions each may hold (behaviour reference §5.2). */
export const APPLICATION_TYPES = ['private', 'public', 'management'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

export const PERMISSIONS: Readonly<Record<string, readonly ApplicationType[]>> = {
  'token:create': ['public', 'private'],
  'token:update': ['public', 'private'],
  'token:read': ['private'],
  'token:search': ['private'],
  'token:delete': ['private'],
  'token:use': ['private'],
  'tenant:read': ['management'],
  'tenant:update': ['management'],
  'tenant:delete': ['management'],
  'application:read': ['management'],
  'application:create': ['management'],
  'application:update': ['management'],
  'application:delete': ['management'],
  'log:read': ['management'],
  'reactor:read': ['management'],
  'reactor:create': ['management'],
  'reactor:update': ['management'],
  'reactor:delete': ['management'],
  'proxy:read': ['management'],
  'proxy:create': ['management'],
  'proxy:update': ['management'],
  'proxy:delete': ['management'],
  'tenant:member:read': ['management'],
  'tenant:member:update': ['management'],
  'tenant:member:delete': ['management'],
  'tenant:invitation:create': ['management'],
  'tenant:invitation:read': ['management'],
  'tenant:invitation:update': ['management'],
  'tenant:invitation:delete': ['management'],
  'report:read': ['management'],
};

export function permissionsFor(type: ApplicationType): string[] {
  return Object.entries(PERMISSIONS)
    .filter(([, types]) => types.includes(type))
    .map(([name]) => name);
}

import type { FieldErrors } from '../errors/catalogue.ts';
import { containerCovers, isContainer } from './containers.ts';
import { isPermission, isTokenPermission, permissionAllowedFor } from './permissions.ts';
import type { ApplicationType } from './permissions.ts';

export const TRANSFORMS = ['mask', 'redact', 'reveal'] as const;
export type Transform = (typeof TRANSFORMS)[number];

/** An access rule (behaviour reference §5.3). */
export interface AccessRule {
  readonly description: string;
  readonly priority: number;
  readonly container: string;
  readonly permissions: readonly string[];
  readonly transform: Transform;
}

/** What plain permissions (without rules) show, per operation (behaviour reference §5.4). */
export const IMPLICIT_TRANSFORMS: Readonly<Record<string, Transform>> = {
  'token:create': 'mask',
  'token:update': 'mask',
  'token:read': 'mask',
  'token:search': 'mask',
  'token:use': 'reveal',
  // Deleting returns no data; `redact` keeps it that way if a caller ever asks.
  'token:delete': 'redact',
};

export interface Grants {
  readonly permissions: readonly string[];
  readonly rules: readonly AccessRule[];
}

export type Decision =
  { readonly allowed: true; readonly transform: Transform } | { readonly allowed: false };

/**
 * The decision for one token operation in one container. Explicit rules are checked in ascending
 * priority; a rule matches when its container covers the token's container and it includes the
 * permission. Plain permissions then act as a rule on `/` with the implicit transform. No match:
 * denied.
 */
export function decide(grants: Grants, permission: string, container: string): Decision {
  const ordered = [...grants.rules].sort((a, b) => a.priority - b.priority);
  for (const rule of ordered) {
    if (rule.permissions.includes(permission) && containerCovers(rule.container, container)) {
      return { allowed: true, transform: rule.transform };
    }
  }
  if (grants.permissions.includes(permission)) {
    return { allowed: true, transform: IMPLICIT_TRANSFORMS[permission] ?? 'redact' };
  }
  return { allowed: false };
}

/** Whether the grants allow `permission` in at least one container (or at all, for non-token ones). */
export function grantsAnywhere(grants: Grants, permission: string): boolean {
  return (
    grants.permissions.includes(permission) || grants.rules.some((r) => r.permissions.includes(permission))
  );
}

/**
 * Checks permissions and rules for an application of `type` (create and update). Returns field
 * errors, empty when valid.
 */
export function validateGrants(
  type: ApplicationType,
  permissions: readonly string[],
  rules: readonly AccessRule[],
): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (permissions.length === 0 && rules.length === 0)
    add('permissions', 'at least one permission or rule is required');
  if (permissions.length > 50) add('permissions', 'at most 50 permissions');
  permissions.forEach((p, i) => {
    if (!isPermission(p)) add(`permissions[${i}]`, `unknown permission '${p}'`);
    else if (!permissionAllowedFor(p, type))
      add(`permissions[${i}]`, `'${p}' is not allowed for ${type} applications`);
  });
  if (new Set(permissions).size !== permissions.length) add('permissions', 'permissions must be unique');
  if (rules.length > 0 && type === 'management')
    add('rules', 'management applications cannot have access rules');
  const priorities = new Set<number>();
  rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!Number.isInteger(rule.priority) || rule.priority < 1)
      add(`${at}.priority`, 'must be an integer ≥ 1');
    else if (priorities.has(rule.priority)) add(`${at}.priority`, 'priorities must be unique');
    priorities.add(rule.priority);
    if (!isContainer(rule.container))
      add(`${at}.container`, "must be a path that starts and ends with '/' (e.g. /pci/high/)");
    if (!TRANSFORMS.includes(rule.transform)) add(`${at}.transform`, 'must be mask, redact or reveal');
    if (rule.permissions.length === 0) add(`${at}.permissions`, 'at least one permission is required');
    rule.permissions.forEach((p, j) => {
      if (!isPermission(p)) add(`${at}.permissions[${j}]`, `unknown permission '${p}'`);
      else if (!isTokenPermission(p))
        add(`${at}.permissions[${j}]`, `rules grant token permissions only, not '${p}'`);
      else if (!permissionAllowedFor(p, type))
        add(`${at}.permissions[${j}]`, `'${p}' is not allowed for ${type} applications`);
    });
    if (typeof rule.description !== 'string' || rule.description.length > 200)
      add(`${at}.description`, 'must be a string of at most 200 characters');
  });
  return errors;
}

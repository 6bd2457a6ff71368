import type { FieldErrors } from '../errors/catalogue.ts';
import {
  MAX_CONDITIONS,
  MAX_CONDITION_VALUE,
  conditionsHold,
  isConditionAttribute,
  isConditionOperator,
} from './conditions.ts';
import type { Condition, ContainerReach, TokenRef } from './conditions.ts';
import { containerCovers, isContainer } from './containers.ts';
import { isPermission, isTokenPermission, permissionAllowedFor, permissionsFor } from './permissions.ts';
import { didYouMeanSuffix } from '../validation/suggest.ts';
import type { ApplicationType } from './permissions.ts';

export const TRANSFORMS = ['mask', 'redact', 'reveal'] as const;
export type Transform = (typeof TRANSFORMS)[number];

/**
 * An access rule. A rule covers either a container (and everything below it) or, on expiring
 * applications only, the tokens its `conditions` match; a conditioned rule has `container` `''`,
 * which is no container, so code that only reads containers grants nothing through it.
 */
export interface AccessRule {
  readonly description: string;
  readonly priority: number;
  readonly container: string;
  readonly permissions: readonly string[];
  readonly transform: Transform;
  readonly conditions?: readonly Condition[];
}

/** Whether the rule is limited by conditions instead of a container. */
export function isConditioned(rule: AccessRule): boolean {
  return rule.conditions !== undefined && rule.conditions.length > 0;
}

/** Whether `rule` covers `token`: by its conditions when it has them, else by container prefix. */
export function ruleCovers(rule: AccessRule, token: TokenRef): boolean {
  if (rule.conditions !== undefined && rule.conditions.length > 0)
    return conditionsHold(rule.conditions, token);
  return isContainer(rule.container) && containerCovers(rule.container, token.container);
}

/** What plain permissions (without rules) show, per operation. */
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
 * priority; a rule matches when it includes the permission and covers the token (its container
 * covers the token's container, or all its conditions hold). Plain permissions then act as a rule on `/` with the implicit transform. No match:
 * denied.
 */
export function decide(grants: Grants, permission: string, token: TokenRef): Decision {
  const ordered = [...grants.rules].sort((a, b) => a.priority - b.priority);
  for (const rule of ordered) {
    if (rule.permissions.includes(permission) && ruleCovers(rule, token)) {
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
/** "unknown permission 'tokn:read' (did you mean token:read?); private applications may hold …". */
function unknownPermission(name: string, valid: readonly string[], type: ApplicationType): string {
  return `unknown permission '${name}'${didYouMeanSuffix(name, valid)}${whichMayHold(type, valid)}`;
}

/** "; private applications may hold token:create, …": the values to choose from, in the message. */
function whichMayHold(type: ApplicationType, valid: readonly string[]): string {
  return valid.length === 0 ? '' : `; ${type} applications may hold ${valid.join(', ')}`;
}

/** "'log:read' is not allowed for private applications, which may hold token:create, …". */
function notAllowed(name: string, type: ApplicationType): string {
  const valid = permissionsFor(type);
  const which = valid.length === 0 ? '' : `, which may hold ${valid.join(', ')}`;
  return `'${name}' is not allowed for ${type} applications${which}`;
}

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
    if (!isPermission(p)) add(`permissions[${i}]`, unknownPermission(p, permissionsFor(type), type));
    else if (!permissionAllowedFor(p, type)) add(`permissions[${i}]`, notAllowed(p, type));
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
    if (type === 'expiring') {
      if (rule.container !== '')
        add(`${at}.container`, 'expiring applications limit rules by conditions, not containers');
      validateConditions(rule.conditions ?? [], `${at}.conditions`, add);
    } else {
      if (rule.conditions !== undefined && rule.conditions.length > 0)
        add(`${at}.conditions`, 'only expiring applications have rule conditions');
      if (!isContainer(rule.container))
        add(`${at}.container`, "must be a path that starts and ends with '/' (e.g. /pci/high/)");
    }
    if (!TRANSFORMS.includes(rule.transform)) add(`${at}.transform`, 'must be mask, redact or reveal');
    if (rule.permissions.length === 0) add(`${at}.permissions`, 'at least one permission is required');
    rule.permissions.forEach((p, j) => {
      if (!isPermission(p))
        add(
          `${at}.permissions[${j}]`,
          unknownPermission(p, permissionsFor(type).filter(isTokenPermission), type),
        );
      else if (!isTokenPermission(p))
        add(`${at}.permissions[${j}]`, `rules grant token permissions only, not '${p}'`);
      else if (!permissionAllowedFor(p, type)) add(`${at}.permissions[${j}]`, notAllowed(p, type));
    });
    if (typeof rule.description !== 'string' || rule.description.length > 200)
      add(`${at}.description`, 'must be a string of at most 200 characters');
  });
  return errors;
}

function validateConditions(
  conditions: readonly Condition[],
  at: string,
  add: (field: string, message: string) => void,
): void {
  if (conditions.length === 0) add(at, 'at least one condition is required');
  if (conditions.length > MAX_CONDITIONS) add(at, `at most ${MAX_CONDITIONS} conditions`);
  conditions.forEach((c, i) => {
    if (!isConditionAttribute(c.attribute)) add(`${at}[${i}].attribute`, 'must be id or container');
    if (!isConditionOperator(c.operator)) add(`${at}[${i}].operator`, 'must be equals or starts_with');
    if (typeof c.value !== 'string' || c.value.length === 0 || c.value.length > MAX_CONDITION_VALUE)
      add(`${at}[${i}].value`, `must be a non-empty string of at most ${MAX_CONDITION_VALUE} characters`);
  });
}

const DISCLOSURE: Readonly<Record<Transform, number>> = { redact: 0, mask: 1, reveal: 2 };

/** Whether `a` shows at most what `b` shows. */
export function showsNoMoreThan(a: Transform, b: Transform): boolean {
  return DISCLOSURE[a] <= DISCLOSURE[b];
}

/**
 * The least `grants` shows for `permission` anywhere in `reach`, or null when some container there
 * is not covered at all. Plain permissions and container rules decide by container only, so the
 * candidates are the rule containers inside the reach plus one container inside it that no such
 * rule names. Conditioned rules of `grants` are left out: they cover named tokens, not containers.
 */
export function leastTransformOver(
  grants: Grants,
  permission: string,
  reach: ContainerReach,
): Transform | null {
  const byContainer: Grants = {
    permissions: grants.permissions,
    rules: grants.rules.filter((r) => !isConditioned(r)),
  };
  let candidates: string[];
  if (reach.kind === 'exactly') {
    candidates = [reach.container];
  } else {
    const inside = byContainer.rules.map((r) => r.container).filter((c) => c.startsWith(reach.prefix));
    // A container inside the reach that no rule names: its decision comes from rules above it only.
    const unnamed = `${reach.prefix}${'\u0000'}`;
    candidates = [...inside, unnamed];
  }
  let least: Transform | null = 'reveal';
  for (const container of candidates) {
    const decision = decide(byContainer, permission, { container });
    if (!decision.allowed) return null;
    if (least !== null && !showsNoMoreThan(least, decision.transform)) least = decision.transform;
  }
  return least;
}

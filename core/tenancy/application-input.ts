import { APPLICATION_TYPES } from '../access/permissions.ts';
import type { ApplicationType } from '../access/permissions.ts';
import type { Condition } from '../access/conditions.ts';
import { validateGrants } from '../access/rules.ts';
import type { AccessRule, Transform } from '../access/rules.ts';
import { parseExpiry } from '../tokens/expiry.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';
import { isPlainObject } from '../validation/json-value.ts';

/** An expiring application lives one minute unless asked otherwise, and at most one day. */
export const EXPIRING_DEFAULT_LIFETIME_MS = 60_000;
export const EXPIRING_MAX_LIFETIME_MS = 24 * 60 * 60_000;

export interface CheckedApplication {
  readonly name: string;
  readonly type: ApplicationType;
  readonly permissions: string[];
  readonly rules: AccessRule[];
  /** ISO UTC; set for expiring applications only. */
  readonly expiresAt: string | null;
  readonly canCreateExpiring: boolean;
}

export function isApplicationType(value: unknown): value is ApplicationType {
  return typeof value === 'string' && (APPLICATION_TYPES as readonly string[]).includes(value);
}

/** Omitted means none: create and update both replace the whole grant set. */
function stringArray(errors: FieldErrorCollector, field: string, value: unknown): string[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((p): p is string => typeof p === 'string')) {
    errors.add(field, 'must be an array of permission names');
    return null;
  }
  return [...value];
}

/**
 * The shape of each rule, so that validateGrants (which judges meaning) only sees well-typed rules.
 * Only the known fields are kept: nothing a caller adds ends up stored.
 */
function rulesOf(errors: FieldErrorCollector, value: unknown): AccessRule[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    errors.add('rules', 'must be an array of access rules');
    return null;
  }
  const rules: AccessRule[] = [];
  let ok = true;
  value.forEach((raw: unknown, i) => {
    const at = `rules[${i}]`;
    if (!isPlainObject(raw)) {
      errors.add(at, 'must be an object');
      ok = false;
      return;
    }
    const description = raw.description ?? '';
    const permissions = stringArray(errors, `${at}.permissions`, raw.permissions);
    const conditions = conditionsOf(errors, `${at}.conditions`, raw.conditions);
    // A conditioned rule has no container ('' is none; validateGrants judges which the type needs).
    const container = raw.container ?? (conditions !== null && conditions.length > 0 ? '' : undefined);
    if (typeof description !== 'string') errors.add(`${at}.description`, 'must be a string');
    if (typeof raw.priority !== 'number') errors.add(`${at}.priority`, 'must be an integer ≥ 1');
    if (typeof container !== 'string') errors.add(`${at}.container`, 'is required');
    if (typeof raw.transform !== 'string') errors.add(`${at}.transform`, 'must be mask, redact or reveal');
    if (
      typeof description !== 'string' ||
      typeof raw.priority !== 'number' ||
      typeof container !== 'string' ||
      typeof raw.transform !== 'string' ||
      permissions === null ||
      conditions === null
    ) {
      ok = false;
      return;
    }
    rules.push({
      description,
      priority: raw.priority,
      container,
      permissions,
      // validateGrants refuses anything but the three transforms.
      transform: raw.transform as Transform,
      ...(conditions.length > 0 ? { conditions } : {}),
    });
  });
  return ok ? rules : null;
}

/**
 * Rule conditions, field by field (validateGrants judges attribute, operator and value). Omitted
 * or null: none.
 */
function conditionsOf(errors: FieldErrorCollector, at: string, value: unknown): Condition[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.add(at, 'must be an array of conditions');
    return null;
  }
  const conditions: Condition[] = [];
  let ok = true;
  value.forEach((raw: unknown, i) => {
    if (
      !isPlainObject(raw) ||
      typeof raw.attribute !== 'string' ||
      typeof raw.operator !== 'string' ||
      typeof raw.value !== 'string'
    ) {
      errors.add(`${at}[${i}]`, 'must be an object with string attribute, operator and value');
      ok = false;
      return;
    }
    // validateGrants refuses attributes and operators outside the two of each.
    conditions.push({
      attribute: raw.attribute as Condition['attribute'],
      operator: raw.operator as Condition['operator'],
      value: raw.value,
    });
  });
  return ok ? conditions : null;
}

/** `expires_at` of a new expiring application: default now + 1 minute, in the future, within a day. */
function checkExpiringExpiry(errors: FieldErrorCollector, value: unknown, now: Date): string | null {
  if (value === undefined || value === null) {
    return new Date(now.getTime() + EXPIRING_DEFAULT_LIFETIME_MS).toISOString();
  }
  const parsed = parseExpiry(value);
  if (typeof parsed === 'string') {
    errors.add('expires_at', parsed);
    return null;
  }
  const ms = parsed.at.getTime() - now.getTime();
  if (ms <= 0) errors.add('expires_at', 'must be in the future');
  else if (ms > EXPIRING_MAX_LIFETIME_MS) errors.add('expires_at', 'must be at most one day from now');
  return parsed.at.toISOString();
}

function checkCreatorFlag(
  errors: FieldErrorCollector,
  type: ApplicationType | null,
  value: unknown,
): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    errors.add('can_create_expiring_applications', 'must be true or false');
    return false;
  }
  if (value && type !== 'private')
    errors.add(
      'can_create_expiring_applications',
      'only private applications may create expiring applications',
    );
  return value;
}

/** Grants for an application of `type`, checked for shape and then for meaning. */
export function checkGrants(
  errors: FieldErrorCollector,
  type: ApplicationType | null,
  input: { permissions?: unknown; rules?: unknown },
): { permissions: string[]; rules: AccessRule[] } {
  const permissions = stringArray(errors, 'permissions', input.permissions);
  const rules = rulesOf(errors, input.rules);
  if (type !== null && permissions !== null && rules !== null)
    errors.merge(validateGrants(type, permissions, rules));
  return { permissions: permissions ?? [], rules: rules ?? [] };
}

/** Input to create, typed loosely on purpose: the CLI and HTTP callers may pass anything. */
export function checkNewApplication(
  input: {
    name?: unknown;
    type?: unknown;
    permissions?: unknown;
    rules?: unknown;
    expires_at?: unknown;
    can_create_expiring_applications?: unknown;
  },
  now: Date,
): CheckedApplication {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name);
  const type = isApplicationType(input.type) ? input.type : null;
  if (type === null) errors.add('type', `must be one of ${APPLICATION_TYPES.join(', ')}`);
  const grants = checkGrants(errors, type, input);
  let expiresAt: string | null = null;
  if (type === 'expiring') expiresAt = checkExpiringExpiry(errors, input.expires_at, now);
  else if (input.expires_at !== undefined && input.expires_at !== null)
    errors.add('expires_at', 'only expiring applications expire');
  const canCreateExpiring = checkCreatorFlag(errors, type, input.can_create_expiring_applications);
  errors.throwIfAny();
  return { name, type: type ?? 'private', ...grants, expiresAt, canCreateExpiring };
}

/** Input to update for an application of `type`; the type itself cannot change. */
export function checkApplicationUpdate(
  type: ApplicationType,
  input: {
    name?: unknown;
    type?: unknown;
    permissions?: unknown;
    rules?: unknown;
    can_create_expiring_applications?: unknown;
  },
): Omit<CheckedApplication, 'type' | 'expiresAt'> {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name);
  if (input.type !== undefined && input.type !== type)
    errors.add('type', 'cannot be changed; create a new application instead');
  const grants = checkGrants(errors, type, input);
  const canCreateExpiring = checkCreatorFlag(errors, type, input.can_create_expiring_applications);
  errors.throwIfAny();
  return { name, ...grants, canCreateExpiring };
}

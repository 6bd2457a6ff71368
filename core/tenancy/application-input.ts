import { APPLICATION_TYPES } from '../access/permissions.ts';
import type { ApplicationType } from '../access/permissions.ts';
import { validateGrants } from '../access/rules.ts';
import type { AccessRule, Transform } from '../access/rules.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';

export interface CheckedApplication {
  readonly name: string;
  readonly type: ApplicationType;
  readonly permissions: string[];
  readonly rules: AccessRule[];
}

export function isApplicationType(value: unknown): value is ApplicationType {
  return typeof value === 'string' && (APPLICATION_TYPES as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    if (!isRecord(raw)) {
      errors.add(at, 'must be an object');
      ok = false;
      return;
    }
    const description = raw.description ?? '';
    const permissions = stringArray(errors, `${at}.permissions`, raw.permissions);
    if (typeof description !== 'string') errors.add(`${at}.description`, 'must be a string');
    if (typeof raw.priority !== 'number') errors.add(`${at}.priority`, 'must be an integer ≥ 1');
    if (typeof raw.container !== 'string') errors.add(`${at}.container`, 'is required');
    if (typeof raw.transform !== 'string') errors.add(`${at}.transform`, 'must be mask, redact or reveal');
    if (
      typeof description !== 'string' ||
      typeof raw.priority !== 'number' ||
      typeof raw.container !== 'string' ||
      typeof raw.transform !== 'string' ||
      permissions === null
    ) {
      ok = false;
      return;
    }
    rules.push({
      description,
      priority: raw.priority,
      container: raw.container,
      permissions,
      // validateGrants refuses anything but the three transforms.
      transform: raw.transform as Transform,
    });
  });
  return ok ? rules : null;
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
export function checkNewApplication(input: {
  name?: unknown;
  type?: unknown;
  permissions?: unknown;
  rules?: unknown;
}): CheckedApplication {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name);
  const type = isApplicationType(input.type) ? input.type : null;
  if (type === null) errors.add('type', `must be one of ${APPLICATION_TYPES.join(', ')}`);
  const grants = checkGrants(errors, type, input);
  errors.throwIfAny();
  return { name, type: type ?? 'private', ...grants };
}

/** Input to update for an application of `type`; the type itself cannot change. */
export function checkApplicationUpdate(
  type: ApplicationType,
  input: { name?: unknown; type?: unknown; permissions?: unknown; rules?: unknown },
): Omit<CheckedApplication, 'type'> {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name);
  if (input.type !== undefined && input.type !== type)
    errors.add('type', 'cannot be changed; create a new application instead');
  const grants = checkGrants(errors, type, input);
  errors.throwIfAny();
  return { name, ...grants };
}

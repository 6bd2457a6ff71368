/**
 * Request-parameter and configuration contracts: casting a value to its declared type, checking
 * invocation args against `request_parameters`, and a reactor's configuration against the formula's
 * `configuration`.
 *
 * Rules:
 * - Names are case-sensitive. A request parameter `parent.child` addresses `args.parent.child`.
 * - A value of another type is cast when possible — `string`: numbers and booleans as text;
 *   `number`: a string holding a finite decimal number; `boolean`: the strings `true`/`false`
 *   (any case) — else 400 naming the parameter. Objects and arrays never cast.
 * - A required parameter that is absent or null → 400. An optional one may be absent or null.
 * - Undeclared args are forwarded unchanged: a complex token embedded whole may carry more fields
 *   than the formula declares, and formulas without parameters see everything.
 * - Configuration: every declared setting is required, undeclared keys are refused, types cast as above.
 */
import { validationError } from '../errors/catalogue.ts';
import type { FieldErrors } from '../errors/catalogue.ts';
import type {
  ConfigurationSetting,
  ConfigurationValue,
  ParameterType,
  RequestParameter,
} from './contract.ts';
import { isPlainObject } from '../validation/json-value.ts';

export type Cast = { readonly ok: true; readonly value: ConfigurationValue } | { readonly ok: false };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** `value` as `type`, or not castable. */
export function castTo(type: ParameterType, value: unknown): Cast {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: String(value) };
      if (typeof value === 'boolean') return { ok: true, value: String(value) };
      return { ok: false };
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
      if (typeof value === 'string' && NUMBER.test(value.trim())) {
        const parsed = Number(value.trim());
        if (Number.isFinite(parsed)) return { ok: true, value: parsed };
      }
      return { ok: false };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'string' && ['true', 'false'].includes(value.trim().toLowerCase())) {
        return { ok: true, value: value.trim().toLowerCase() === 'true' };
      }
      return { ok: false };
  }
}

function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/**
 * A copy of `args` with every declared parameter present (unless optional) and cast to its type;
 * 400 naming each failing parameter as `args.<name>`.
 */
export function checkArgs(args: unknown, parameters: readonly RequestParameter[]): Record<string, unknown> {
  if (args !== undefined && args !== null && !isPlainObject(args)) {
    throw validationError({ args: ['must be an object'] });
  }
  const out: Record<string, unknown> = structuredClone(args ?? {});
  const errors: FieldErrors = {};
  for (const parameter of parameters) {
    const path = parameter.name.split('.');
    const last = path.at(-1) as string;
    let parent: Record<string, unknown> | undefined = out;
    for (const key of path.slice(0, -1)) {
      const next: unknown = parent !== undefined && Object.hasOwn(parent, key) ? parent[key] : undefined;
      parent = isPlainObject(next) ? next : undefined;
    }
    const field = `args.${parameter.name}`;
    const present = parent !== undefined && Object.hasOwn(parent, last) && parent[last] !== null;
    if (!present || parent === undefined) {
      if (!parameter.optional) addError(errors, field, 'is required');
      continue;
    }
    const cast = castTo(parameter.type, parent[last]);
    if (cast.ok) parent[last] = cast.value;
    else addError(errors, field, `must be a ${parameter.type}`);
  }
  if (Object.keys(errors).length > 0)
    throw validationError(errors, 'The args do not match the request parameters.');
  return out;
}

/** The configuration cast to the declared types; 400 naming each missing, undeclared or mistyped key. */
export function checkConfiguration(
  configuration: unknown,
  settings: readonly ConfigurationSetting[],
): Record<string, ConfigurationValue> {
  if (!isPlainObject(configuration)) throw validationError({ configuration: ['must be an object'] });
  const errors: FieldErrors = {};
  const out: Record<string, ConfigurationValue> = {};
  const declared = new Map(settings.map((s) => [s.name, s]));
  for (const key of Object.keys(configuration)) {
    if (!declared.has(key)) addError(errors, `configuration.${key}`, 'is not declared by the formula');
  }
  for (const setting of settings) {
    const field = `configuration.${setting.name}`;
    const value = Object.hasOwn(configuration, setting.name) ? configuration[setting.name] : undefined;
    if (value === undefined || value === null) {
      addError(errors, field, 'is required by the formula');
      continue;
    }
    const cast = castTo(setting.type, value);
    if (cast.ok) out[setting.name] = cast.value;
    else addError(errors, field, `must be a ${setting.type}`);
  }
  if (Object.keys(errors).length > 0) {
    throw validationError(errors, "The configuration does not satisfy the formula's configuration contract.");
  }
  return out;
}

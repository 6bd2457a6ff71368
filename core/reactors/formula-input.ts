/**
 * Checks of a formula body (create and update are full replacements), collected into one 400 with
 * a field-errors map. Limits: name ≤ 200, description ≤ 1000, code ≤ 50 000 characters, icon a
 * base64 data URL of image/png, image/jpg or image/jpeg ≤ 50 000 characters, at most 25
 * configuration settings (names `^[\w-]+$`, no dots) and 25 request parameters (names of two or more
 * of `A-Za-z0-9._-`, starting and ending alphanumeric; dots nest), descriptions ≤ 400, names unique.
 * Tenants create `private` formulas only: `official` ones ship with the vault.
 */
import { validationError } from '../errors/catalogue.ts';
import type { FieldErrors } from '../errors/catalogue.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';
import { FORMULA_STATUSES, PARAMETER_TYPES } from './contract.ts';
import type {
  ConfigurationSetting,
  FormulaStatus,
  ParameterType,
  ReactorFormulaInput,
  RequestParameter,
} from './contract.ts';
import { isPlainObject } from '../validation/json-value.ts';

export const FORMULA_DESCRIPTION_MAX = 1000;
export const FORMULA_CODE_MAX = 50_000;
export const FORMULA_ICON_MAX = 50_000;
export const CONTRACT_ITEMS_MAX = 25;
export const CONTRACT_NAME_MAX = 200;
export const CONTRACT_DESCRIPTION_MAX = 400;

const CONFIGURATION_NAME = /^[\w-]+$/;
const PARAMETER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$/;
const ICON_PREFIX = /^data:image\/(?:png|jpg|jpeg);base64,/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** ASCII whitespace, which a data URL's base64 may carry (line breaks, a space after the comma). */
const ASCII_WHITESPACE = /[\t\n\f\r ]/g;

/**
 * A base64 data URL of a png, jpg or jpeg image. Whitespace inside the base64 is allowed, as
 * browsers decode it (forgiving base64: ASCII whitespace is skipped), so `data:image/png;base64,
 * iVBOR…` is an icon; the value is kept exactly as sent.
 */
export function isIconDataUrl(value: string): boolean {
  const prefix = ICON_PREFIX.exec(value);
  if (prefix === null) return false;
  return BASE64.test(value.slice(prefix[0].length).replace(ASCII_WHITESPACE, ''));
}

export interface CheckedFormula {
  readonly name: string;
  readonly description: string | null;
  readonly status: FormulaStatus;
  readonly icon: string | null;
  readonly code: string;
  readonly configuration: ConfigurationSetting[];
  readonly request_parameters: RequestParameter[];
}

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** A trimmed-or-not required string within `max`. */
function requiredString(errors: FieldErrors, field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') {
    add(errors, field, 'is required');
    return '';
  }
  if (value.length > max) add(errors, field, `must be at most ${max} characters`);
  return value;
}

function optionalString(errors: FieldErrors, field: string, value: unknown, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    add(errors, field, 'must be a string');
    return undefined;
  }
  if (value.length > max) add(errors, field, `must be at most ${max} characters`);
  return value;
}

function typeOf(errors: FieldErrors, field: string, value: unknown): ParameterType {
  if (typeof value === 'string' && (PARAMETER_TYPES as readonly string[]).includes(value))
    return value as ParameterType;
  add(errors, field, `must be one of ${PARAMETER_TYPES.join(', ')}`);
  return 'string';
}

function contractItems(errors: FieldErrors, field: string, value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    add(errors, field, 'must be an array');
    return [];
  }
  if (value.length > CONTRACT_ITEMS_MAX) add(errors, field, `must have at most ${CONTRACT_ITEMS_MAX} items`);
  return value.map((item, i) => {
    if (!isPlainObject(item)) add(errors, `${field}[${i}]`, 'must be an object');
    return isPlainObject(item) ? item : {};
  });
}

function checkNames(
  errors: FieldErrors,
  field: string,
  names: string[],
  pattern: RegExp,
  rule: string,
): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') return;
    if (!pattern.test(name)) add(errors, `${field}[${i}].name`, rule);
    if (seen.has(name)) add(errors, `${field}[${i}].name`, 'is declared twice');
    seen.add(name);
  });
}

export function checkFormulaInput(input: ReactorFormulaInput): CheckedFormula {
  const collector = new FieldErrorCollector();
  const errors = collector.errors;
  const body: Record<string, unknown> = isPlainObject(input) ? input : {};
  const name = checkName(collector, body['name']);
  const description = optionalString(errors, 'description', body['description'], FORMULA_DESCRIPTION_MAX);
  if (body['type'] === 'official')
    add(errors, 'type', 'official formulas ship with the vault; create private ones');
  else if (body['type'] !== 'private') add(errors, 'type', 'must be private');
  let status: FormulaStatus = 'verified';
  if (body['status'] !== undefined && body['status'] !== null) {
    if ((FORMULA_STATUSES as readonly unknown[]).includes(body['status']))
      status = body['status'] as FormulaStatus;
    else add(errors, 'status', `must be one of ${FORMULA_STATUSES.join(', ')}`);
  }
  const icon = optionalString(errors, 'icon', body['icon'], FORMULA_ICON_MAX);
  if (icon !== undefined && !isIconDataUrl(icon)) {
    add(errors, 'icon', 'must be a base64 data URL of image/png, image/jpg or image/jpeg');
  }
  const code = requiredString(errors, 'code', body['code'], FORMULA_CODE_MAX);

  const configuration = contractItems(errors, 'configuration', body['configuration']).map((item, i) => {
    const field = `configuration[${i}]`;
    const settingName = requiredString(errors, `${field}.name`, item['name'], CONTRACT_NAME_MAX);
    const settingDescription = optionalString(
      errors,
      `${field}.description`,
      item['description'],
      CONTRACT_DESCRIPTION_MAX,
    );
    const setting: ConfigurationSetting = {
      name: settingName,
      ...(settingDescription === undefined ? {} : { description: settingDescription }),
      type: typeOf(errors, `${field}.type`, item['type']),
    };
    return setting;
  });
  checkNames(
    errors,
    'configuration',
    configuration.map((s) => s.name),
    CONFIGURATION_NAME,
    'may contain only letters, digits, _ and - (no dots)',
  );

  const parameters = contractItems(errors, 'request_parameters', body['request_parameters']).map(
    (item, i) => {
      const field = `request_parameters[${i}]`;
      const parameterName = requiredString(errors, `${field}.name`, item['name'], CONTRACT_NAME_MAX);
      const parameterDescription = optionalString(
        errors,
        `${field}.description`,
        item['description'],
        CONTRACT_DESCRIPTION_MAX,
      );
      const optional = item['optional'] ?? false;
      if (typeof optional !== 'boolean') add(errors, `${field}.optional`, 'must be a boolean');
      const parameter: RequestParameter = {
        name: parameterName,
        ...(parameterDescription === undefined ? {} : { description: parameterDescription }),
        type: typeOf(errors, `${field}.type`, item['type']),
        optional: optional === true,
      };
      return parameter;
    },
  );
  checkNames(
    errors,
    'request_parameters',
    parameters.map((p) => p.name),
    PARAMETER_NAME,
    'must be two or more of A-Z a-z 0-9 . _ -, starting and ending with a letter or digit',
  );

  if (Object.keys(errors).length > 0) throw validationError(errors);
  return {
    name,
    description: description ?? null,
    status,
    icon: icon ?? null,
    code,
    configuration,
    request_parameters: parameters,
  };
}

import { destinationUrlProblem } from '../outbound/destination-url.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';
import type { ProxyInput, ProxyTransform } from './contract.ts';
import { isPlainObject } from '../validation/json-value.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

/** Configuration entries per proxy: a handful of settings, not a key-value store. */
export const CONFIGURATION_MAX_ENTRIES = 25;
/** Configuration names: letters, digits, `_` and `-`, like formula configuration names. */
export const CONFIGURATION_NAME = /^[\w-]{1,200}$/;
/** Longest configuration value (characters). */
export const CONFIGURATION_VALUE_MAX = 4000;
/** Longest transform code (characters), the later reactor code limit. */
export const TRANSFORM_CODE_MAX = 50_000;

export interface CheckedProxy {
  readonly name: string;
  readonly destinationUrl: string;
  readonly requestTransform: string | null;
  readonly responseTransform: string | null;
  readonly applicationId: string | null;
  readonly configuration: Record<string, string>;
  readonly requireAuth: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkTransform(errors: FieldErrorCollector, field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const code = isPlainObject(value) ? (value as Partial<ProxyTransform>).code : undefined;
  if (typeof code !== 'string' || code.trim() === '') {
    errors.add(`${field}.code`, 'is required: the transform module code');
    return null;
  }
  if (code.length > TRANSFORM_CODE_MAX)
    errors.add(`${field}.code`, `must be at most ${TRANSFORM_CODE_MAX} characters`);
  return code;
}

function checkConfiguration(errors: FieldErrorCollector, value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    errors.add('configuration', 'must be an object of names to string values');
    return {};
  }
  const entries = Object.entries(value);
  if (entries.length > CONFIGURATION_MAX_ENTRIES)
    errors.add('configuration', `must have at most ${CONFIGURATION_MAX_ENTRIES} entries`);
  const out = keyedRecord<string>();
  for (const [name, item] of entries) {
    // Refused as a request body refuses a `__proto__` member, so a command on its own vault takes
    // the same configurations as a server does.
    if (name === '__proto__') {
      errors.add('configuration', 'name "__proto__" is not accepted');
      continue;
    }
    if (!CONFIGURATION_NAME.test(name)) {
      errors.add(
        'configuration',
        `name ${JSON.stringify(name.slice(0, 50))} may hold only letters, digits, _ and -`,
      );
      continue;
    }
    if (typeof item !== 'string') errors.add(`configuration.${name}`, 'must be a string');
    else if (item.length > CONFIGURATION_VALUE_MAX)
      errors.add(`configuration.${name}`, `must be at most ${CONFIGURATION_VALUE_MAX} characters`);
    else out[name] = item;
  }
  return out;
}

/** Checks a create or full-replacement update; throws VALIDATION_FAILED with every problem. */
export function checkProxyInput(input: ProxyInput): CheckedProxy {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name);
  let destinationUrl = '';
  if (typeof input.destination_url !== 'string' || input.destination_url.trim() === '') {
    errors.add('destination_url', 'is required');
  } else {
    destinationUrl = input.destination_url.trim();
    const problem = destinationUrlProblem(destinationUrl);
    if (problem !== null) errors.add('destination_url', problem);
  }
  const requestTransform = checkTransform(errors, 'request_transform', input.request_transform);
  const responseTransform = checkTransform(errors, 'response_transform', input.response_transform);
  let applicationId: string | null = null;
  if (input.application !== undefined && input.application !== null) {
    const id = isPlainObject(input.application) ? input.application.id : undefined;
    if (typeof id !== 'string' || !UUID.test(id))
      errors.add('application.id', 'must be an application id (UUID)');
    else applicationId = id.toLowerCase();
  }
  const configuration = checkConfiguration(errors, input.configuration);
  let requireAuth = true;
  if (input.require_auth !== undefined) {
    if (typeof input.require_auth !== 'boolean') errors.add('require_auth', 'must be true or false');
    else requireAuth = input.require_auth;
  }
  errors.throwIfAny();
  return {
    name,
    destinationUrl,
    requestTransform,
    responseTransform,
    applicationId,
    configuration,
    requireAuth,
  };
}

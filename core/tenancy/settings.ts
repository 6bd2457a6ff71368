import { VaultError } from '../errors/catalogue.ts';
import type { FieldErrorCollector } from '../validation/fields.ts';

/**
 * Tenant settings the vault understands (behaviour reference §8.1). Values are the strings
 * "true"/"false", as the reference API sends them; an absent key means "false".
 */
export const KNOWN_SETTINGS = [
  'deduplicate_tokens',
  'fingerprint_tokens',
  'disable_ephemeral_proxy',
] as const;
export type SettingName = (typeof KNOWN_SETTINGS)[number];

const KNOWN = new Set<string>(KNOWN_SETTINGS);

/**
 * Checks a full replacement of the settings. Unknown keys are refused rather than stored: a typo
 * such as `deduplicate_token` would otherwise look saved while changing nothing.
 */
export function checkSettings(errors: FieldErrorCollector, input: unknown): Record<string, string> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    errors.add('settings', 'must be an object of setting names to "true" or "false"');
    return {};
  }
  const settings: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (!KNOWN.has(key)) {
      unknown.push(key);
      continue;
    }
    if (value !== 'true' && value !== 'false') errors.add(`settings.${key}`, 'must be "true" or "false"');
    else settings[key] = value;
  }
  if (unknown.length > 0) {
    errors.add(
      'settings',
      `unknown setting${unknown.length === 1 ? '' : 's'}: ${unknown.map(quoted).join(', ')} ` +
        `(known: ${KNOWN_SETTINGS.join(', ')})`,
    );
  }
  return settings;
}

function quoted(key: string): string {
  return JSON.stringify(key.length > 50 ? `${key.slice(0, 50)}…` : key);
}

/** The stored JSON, as the API shows it. */
export function parseSettings(json: string): Record<string, string> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new VaultError('VAULT_CORRUPT', 'A tenant has malformed settings.');
  }
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') settings[key] = value;
  return settings;
}

/** For the features that read a setting (tokens issue): absent counts as off. */
export function settingEnabled(settings: Record<string, string>, name: SettingName): boolean {
  return settings[name] === 'true';
}

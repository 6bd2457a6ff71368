import { VaultError } from '../errors/catalogue.ts';
import type { FieldErrorCollector } from '../validation/fields.ts';

/**
 * Tenant settings the vault understands. Values are the strings
 * "true"/"false" (settings are a map of strings); an absent key takes the default below. Each
 * accepted setting must change what the vault does; one that cannot yet is not listed, so it is
 * refused like any unknown key instead of looking saved.
 */
export const KNOWN_SETTINGS = [
  'deduplicate_tokens',
  'fingerprint_tokens',
  'disable_ephemeral_proxy',
] as const;
export type SettingName = (typeof KNOWN_SETTINGS)[number];

const KNOWN = new Set<string>(KNOWN_SETTINGS);

/**
 * Values of absent keys. `fingerprint_tokens` defaults to on: the 2022 interface fingerprints every
 * token, and tenants created before the setting existed keep that behaviour.
 */
export const SETTING_DEFAULTS: Readonly<Record<SettingName, boolean>> = {
  deduplicate_tokens: false,
  fingerprint_tokens: true,
  disable_ephemeral_proxy: false,
};

/** What each setting does, for people: published in the API's schema, shown by the console. */
export const SETTING_DESCRIPTIONS: Readonly<Record<SettingName, string>> = {
  deduplicate_tokens:
    'Creating a token whose fingerprint matches an existing token returns that token instead of a ' +
    'new one (a request may still say otherwise with `deduplicate_token`).',
  fingerprint_tokens:
    'Every token gets a fingerprint of its data; when off, only tokens with their own fingerprint ' +
    'expression do, and the others can never be found as duplicates.',
  disable_ephemeral_proxy:
    'Refuse ephemeral proxy requests (a destination named with SVC-PROXY-URL instead of a proxy).',
};

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

/** Whether a setting is on: its stored "true"/"false", else its default. */
export function settingEnabled(settings: Readonly<Record<string, string>>, name: SettingName): boolean {
  const value = settings[name];
  return value === undefined ? SETTING_DEFAULTS[name] : value === 'true';
}

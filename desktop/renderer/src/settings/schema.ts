/**
 * The tenant settings the server understands, read from its own OpenAPI document (the settings
 * object of `GET /tenants/self`, built from core/tenancy/settings.ts): name, what it does, its
 * values and default. The console draws its switches from this, so a setting added to the vault
 * appears here without a console change; the server still judges every save.
 */
export interface SettingSpec {
  readonly name: string;
  readonly description: string;
  /** `switch`: the strings "true"/"false"; `select`: another list of values; `text`: anything. */
  readonly kind: 'switch' | 'select' | 'text';
  readonly values: readonly string[];
  /** The value an absent setting has, when the schema says (`x-svc-default`). */
  readonly defaultValue: string | null;
}

interface PropertySchema {
  readonly description?: unknown;
  readonly enum?: unknown;
  readonly 'x-svc-default'?: unknown;
}

function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The settings described in an OpenAPI document; empty when it describes none. */
export function settingSpecs(openapi: unknown): SettingSpec[] {
  const properties = at(
    openapi,
    'paths',
    '/tenants/self',
    'get',
    'responses',
    '200',
    'content',
    'application/json',
    'schema',
    'properties',
    'settings',
    'properties',
  );
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, PropertySchema>).map(([name, schema]) => {
    const values = Array.isArray(schema.enum)
      ? schema.enum.filter((v): v is string => typeof v === 'string')
      : [];
    const isSwitch = values.length === 2 && values.includes('true') && values.includes('false');
    const defaultValue = schema['x-svc-default'];
    return {
      name,
      description: typeof schema.description === 'string' ? schema.description : '',
      kind: isSwitch ? 'switch' : values.length > 0 ? 'select' : 'text',
      values,
      defaultValue: typeof defaultValue === 'string' ? defaultValue : null,
    };
  });
}

/** "deduplicate_tokens" → "Deduplicate tokens". */
export function settingLabel(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

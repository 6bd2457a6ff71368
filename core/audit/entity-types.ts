/**
 * Entity types of audit entries: the published values plus a complete list of what the vault
 * audits. Values and display names are letters only (`^[A-Za-z]+$`), camelCase values,
 * PascalCase display names. Every value an entry is ever written with is listed here, so every
 * entry can be filtered by its type.
 */
export const ENTITY_TYPES: ReadonlyArray<{ readonly display_name: string; readonly value: string }> = [
  { display_name: 'Application', value: 'application' },
  { display_name: 'Bank', value: 'bank' },
  { display_name: 'Card', value: 'card' },
  { display_name: 'Proxy', value: 'proxy' },
  { display_name: 'Reactor', value: 'reactor' },
  { display_name: 'ReactorFormula', value: 'reactorFormula' },
  { display_name: 'Tenant', value: 'tenant' },
  { display_name: 'TenantInvitation', value: 'tenantInvitation' },
  { display_name: 'TenantMember', value: 'tenantMember' },
  { display_name: 'Token', value: 'token' },
];

/**
 * Token types whose entries carry their own entity type (the two older token types); entries of
 * every other token type are `token`, as in the API this one follows.
 */
const OWN_ENTITY_TOKEN_TYPES: ReadonlySet<string> = new Set(['card', 'bank']);

/** The entity type of an audit entry about a token of `tokenType`. */
export function tokenEntityType(tokenType: string): string {
  return OWN_ENTITY_TOKEN_TYPES.has(tokenType) ? tokenType : 'token';
}

export const AUDIT_OPERATIONS = ['create', 'read', 'update', 'delete', 'use', 'invoke'] as const;
export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];

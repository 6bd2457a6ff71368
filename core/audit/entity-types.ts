/**
 * Entity types of audit entries (behaviour reference §7.2: the published values plus the
 * suggested complete list, camelCase). Token entries use the token's type as entity type.
 */
export const ENTITY_TYPES: ReadonlyArray<{ readonly display_name: string; readonly value: string }> = [
  { display_name: 'Application', value: 'application' },
  { display_name: 'Bank', value: 'bank' },
  { display_name: 'Card', value: 'card' },
  { display_name: 'Proxy', value: 'proxy' },
  { display_name: 'Reactor', value: 'reactor' },
  { display_name: 'Reactor Formula', value: 'reactorFormula' },
  { display_name: 'Tenant', value: 'tenant' },
  { display_name: 'Tenant Invitation', value: 'tenantInvitation' },
  { display_name: 'Tenant Member', value: 'tenantMember' },
  { display_name: 'Token', value: 'token' },
];

export const AUDIT_OPERATIONS = ['create', 'read', 'update', 'delete', 'use', 'invoke'] as const;
export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];

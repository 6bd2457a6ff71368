/**
 * Test helpers of the tokens feature: application principals with chosen grants (built directly:
 * `transformFor` looks only at the principal), and a vault with two tenants.
 */
import { randomUUID } from 'node:crypto';
import type { AccessRule, Transform } from '../access/rules.ts';
import { operatorIn, type Principal } from '../access/principal.ts';
import { openServicesFixture } from '../test-support/services-fixture.ts';
import type { ServicesFixture } from '../test-support/services-fixture.ts';

export function rule(
  priority: number,
  container: string,
  permissions: string[],
  transform: Transform,
): AccessRule {
  return { description: `rule ${priority}`, priority, container, permissions, transform };
}

export function appIn(
  tenantId: string,
  grants: { permissions?: string[]; rules?: AccessRule[] } = {},
): Principal {
  return {
    kind: 'application',
    tenantId,
    applicationId: randomUUID(),
    applicationType: 'private',
    permissions: grants.permissions ?? [],
    rules: grants.rules ?? [],
  };
}

export const ALL_TOKEN_PERMISSIONS = [
  'token:create',
  'token:read',
  'token:update',
  'token:delete',
  'token:search',
  'token:use',
];

export interface TokenFixture extends ServicesFixture {
  readonly tenantId: string;
  readonly otherTenantId: string;
  /** Operator of the first tenant: every permission, reveal everywhere. */
  readonly operator: Principal;
  /** Private application with every token permission as plain permissions (mask transforms). */
  readonly app: Principal;
  /** Private application with every token permission through a reveal rule on `/`. */
  readonly revealer: Principal;
}

export async function openTokenFixture(): Promise<TokenFixture> {
  const f = await openServicesFixture();
  const first = await f.services.tenants.create({ name: 'Acme', withApplication: false }, null);
  const second = await f.services.tenants.create({ name: 'Other', withApplication: false }, null);
  const tenantId = first.tenant.id;
  return Object.assign(f, {
    tenantId,
    otherTenantId: second.tenant.id,
    operator: operatorIn(tenantId),
    app: appIn(tenantId, { permissions: ALL_TOKEN_PERMISSIONS }),
    revealer: appIn(tenantId, { rules: [rule(1, '/', ALL_TOKEN_PERMISSIONS, 'reveal')] }),
  });
}

/** Rows of a table (all tenants). */
export async function countRows(
  f: ServicesFixture,
  table: 'tokens' | 'token_search_indexes' | 'token_activity' | 'audit_logs',
): Promise<number> {
  // Audit entries may have moved from the table to segment files: counted where the vault keeps them.
  if (table === 'audit_logs') return f.vault.audit.count();
  const row = await f.vault.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A card number that passes the Luhn check: 15 digits from `n`, then the check digit. */
export function cardNumber(n: number): string {
  const body = `4242424242${String(n).padStart(5, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let digit = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/**
 * The audit entries of token operations: fixed wording (never data, never ids or metadata values),
 * each entry naming the token's type as its entity type.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import { tokenEntityType, type AuditOperation } from '../audit/entity-types.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { TokenRow } from './token-store.ts';

/** Fixed audit wording: never data, never ids or metadata values. */
export const TOKEN_MESSAGES = {
  create: 'Token created',
  read: 'Token read',
  duplicate: 'Token returned as a duplicate',
  update: 'Token updated',
  delete: 'Token deleted',
  expired: 'Token expired',
} as const;

/** What an audit entry names of a token. */
export type Audited = Pick<TokenRow, 'tenant_id' | 'id' | 'type'>;

/** The event of a read of `token`. */
export function readEvent(token: Audited, message: string) {
  return {
    tenantId: token.tenant_id,
    entityType: tokenEntityType(token.type),
    entityId: token.id,
    operation: 'read' as const,
    message,
  };
}

/** Appends the audit entry of `operation` on `token` in `trx` (`principal` null: the vault did it). */
export function auditToken(
  vault: VaultHandle,
  trx: Kysely<Database>,
  principal: Principal | null,
  token: Audited,
  operation: AuditOperation,
  message: string,
): Promise<void> {
  return appendAudit(trx, vault, principal, {
    tenantId: token.tenant_id,
    entityType: tokenEntityType(token.type),
    entityId: token.id,
    operation,
    message,
  });
}

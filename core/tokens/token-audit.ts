/**
 * The audit entries of token operations: fixed wording (never data, never ids or metadata values),
 * each entry naming the token's type as its entity type.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.ts';
import type { Transform } from '../access/rules.ts';
import { appendAudit, type AuditEvent } from '../audit/audit-log.ts';
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
  listed: 'Tokens listed',
  searched: 'Tokens searched',
} as const;

/**
 * Whether a read through `transform` showed the token's data unmasked: what a read or use entry's
 * `revealed` says. A mask shows a derived part and a redaction nothing; both count as masked.
 */
export function revealedBy(transform: Transform): boolean {
  return transform === 'reveal';
}

/** What an audit entry names of a token. */
export type Audited = Pick<TokenRow, 'tenant_id' | 'id' | 'type'>;

/** The event of a read of `token`, through `transform`. */
export function readEvent(token: Audited, message: string, transform: Transform): AuditEvent {
  return {
    tenantId: token.tenant_id,
    entityType: tokenEntityType(token.type),
    entityId: token.id,
    operation: 'read',
    message,
    revealed: revealedBy(transform),
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

import { authorize } from '../access/authorize.ts';
import type { LogEntry, LogService } from '../services-contract.ts';
import { FieldErrorCollector, checkPage } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { AuditLogEntry, LogFilter } from './audit-log.ts';
import { AUDIT_OPERATIONS, ENTITY_TYPES } from './entity-types.ts';
import { ACTOR_TYPES, type ActorType } from '../access/principal.ts';
import { userEmails } from '../identity/users.ts';
import { applicationNames } from '../tenancy/application-store.ts';

/** Log entries per page: logs are paged larger than other lists. */
export const MAX_LOG_PAGE_SIZE = 10_000;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:$|T)/;

/** A date or date-time as UTC ISO, so it compares correctly with the stored `created_at`. */
function instant(errors: FieldErrorCollector, field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Date.parse alone takes "1" for the year 2001; insist on an ISO date first.
  const ms = typeof value === 'string' && ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    errors.add(field, 'must be an ISO 8601 date or date-time');
    return undefined;
  }
  return new Date(ms).toISOString();
}

function checkFilter(filter: LogFilter): LogFilter {
  const errors = new FieldErrorCollector();
  if (
    filter.entityType !== undefined &&
    (typeof filter.entityType !== 'string' || filter.entityType.length > 50)
  )
    errors.add('entity_type', 'must be at most 50 characters');
  if (filter.entityId !== undefined && (typeof filter.entityId !== 'string' || filter.entityId.length > 200))
    errors.add('entity_id', 'must be at most 200 characters');
  if (filter.actorId !== undefined && (typeof filter.actorId !== 'string' || filter.actorId.length > 200))
    errors.add('actor_id', 'must be at most 200 characters');
  if (filter.actorType !== undefined && !ACTOR_TYPES.includes(filter.actorType))
    errors.add('actor_type', `must be one of ${ACTOR_TYPES.join(', ')}`);
  if (filter.operation !== undefined && !AUDIT_OPERATIONS.includes(filter.operation))
    errors.add('operation', `must be one of ${AUDIT_OPERATIONS.join(', ')}`);
  const startDate = instant(errors, 'start_date', filter.startDate);
  const endDate = instant(errors, 'end_date', filter.endDate);
  errors.throwIfAny();
  return {
    ...(filter.entityType ? { entityType: filter.entityType } : {}),
    ...(filter.entityId ? { entityId: filter.entityId } : {}),
    ...(filter.actorId ? { actorId: filter.actorId } : {}),
    ...(filter.actorType ? { actorType: filter.actorType } : {}),
    ...(filter.operation ? { operation: filter.operation } : {}),
    ...(startDate ? { startDate } : {}),
    ...(endDate ? { endDate } : {}),
  };
}

/** What an entry of the operator shows as its actor's name. */
export const OPERATOR_NAME = 'operator';

/**
 * The entries of a page with their actors' names: one query for the applications and one for the
 * users among them, whatever the page's size. Names are read now, not stored in the entry: a
 * renamed application shows its current name, and a deleted one none.
 */
async function withActorNames(
  vault: VaultHandle,
  tenantId: string,
  entries: readonly AuditLogEntry[],
): Promise<LogEntry[]> {
  const idsOf = (type: ActorType) => [
    ...new Set(entries.flatMap((e) => (e.actor_type === type && e.actor_id !== null ? [e.actor_id] : []))),
  ];
  const [applications, users] = await Promise.all([
    applicationNames(vault.db, tenantId, idsOf('application')),
    userEmails(vault.db, vault, idsOf('user')),
  ]);
  const nameOf = (entry: Pick<AuditLogEntry, 'actor_id' | 'actor_type'>): string | null => {
    if (entry.actor_type === 'operator') return OPERATOR_NAME;
    if (entry.actor_id === null) return null;
    if (entry.actor_type === 'application') return applications.get(entry.actor_id) ?? null;
    if (entry.actor_type === 'user') return users.get(entry.actor_id) ?? null;
    return null;
  };
  // Fields in the order the API declares them, so both faces of the CLI print the same JSON.
  return entries.map(({ id, tenant_id, actor_id, actor_type, ...rest }) => ({
    id,
    tenant_id,
    actor_id,
    actor_type,
    actor_name: nameOf({ actor_id, actor_type }),
    ...rest,
  }));
}

/**
 * Reading the log is not itself logged: it is not an entity of the tenant, and a log that grows
 * each time it is read would bury the entries someone is looking for (and `svc logs --follow`
 * polls it).
 */
export function createLogService(vault: VaultHandle): LogService {
  return {
    async list(principal, filter, page) {
      authorize(principal, 'log:read');
      const range = checkPage(page, MAX_LOG_PAGE_SIZE);
      const found = await vault.audit.list(principal.tenantId, checkFilter(filter), range);
      return { total: found.total, items: await withActorNames(vault, principal.tenantId, found.items) };
    },

    async entityTypes(principal) {
      authorize(principal, 'log:read');
      return ENTITY_TYPES.map((t) => ({ display_name: t.display_name, value: t.value }));
    },

    verify(tenantId) {
      return vault.audit.verify(tenantId);
    },
  };
}

import { MAX_LOG_PAGE_SIZE } from '../../core/audit/log-service.ts';
import { Type } from 'typebox';
import type { LogFilter } from '../../core/audit/audit-log.ts';
import { AUDIT_OPERATIONS, type AuditOperation } from '../../core/audit/entity-types.ts';
import { ACTOR_TYPES, type ActorType } from '../../core/access/principal.ts';
import { validationError, type FieldErrors } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { principalOf } from '../http/access.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { Nullable, Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

export const LogSchema = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'The entry’s own id, stable across pages.',
  }),
  tenant_id: Type.String({ format: 'uuid' }),
  actor_id: Nullable(Type.String()),
  actor_type: Nullable(Type.String({ description: '`user`, `application` or `operator` (the CLI).' })),
  actor_name: Nullable(
    Type.String({
      description:
        'Who acted, as people know them, read when the log is: the application’s name, the user’s e-mail, `operator`. Null once the actor no longer exists (a deleted application) and for entries the vault wrote itself.',
    }),
  ),
  entity_type: Type.String(),
  entity_id: Type.String(),
  operation: Type.String({ description: '`create`, `read`, `update`, `delete`, `use` or `invoke`.' }),
  message: Type.String(),
  created_at: Timestamp,
  entity_ids: Nullable(
    Type.Array(Type.String(), {
      description: 'Every id one request touched when this entry stands for several (a list or a search).',
    }),
  ),
  revealed: Nullable(
    Type.Boolean({ description: 'For a read: whether the caller saw the data unmasked. Null otherwise.' }),
  ),
});

export const EntityTypeSchema = Type.Object({
  display_name: Type.String({ pattern: '^[A-Za-z]+$' }),
  value: Type.String({ description: 'What a log entry holds in `entity_type`.' }),
});

const DATE_DESCRIPTION =
  'ISO 8601: a date (`2025-01-31`, midnight UTC) or a date-time (`2025-01-31T12:00:00Z`; ' +
  'without an offset it is read as UTC).';

const ListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_LOG_PAGE_SIZE }).properties,
  entity_type: Type.Optional(Type.String({ maxLength: 50, pattern: '^[A-Za-z]+$' })),
  entity_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Entries about this id, including one entry standing for several ids among them.',
    }),
  ),
  actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  actor_type: Type.Optional(Type.Union(ACTOR_TYPES.map((t) => Type.Literal(t)))),
  operation: Type.Optional(Type.Union(AUDIT_OPERATIONS.map((o) => Type.Literal(o)))),
  start_date: Type.Optional(
    Type.String({ maxLength: 40, description: `Entries created at or after this time. ${DATE_DESCRIPTION}` }),
  ),
  end_date: Type.Optional(
    Type.String({ maxLength: 40, description: `Entries created before this time. ${DATE_DESCRIPTION}` }),
  ),
});

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|([+-])(\d{2}):(\d{2}))?)?$/;

/**
 * An ISO 8601 date or date-time as the instant the log compares with: `created_at` is stored as
 * `toISOString()`, so a filter must be in that exact form to compare as text. Null when the value
 * is not a date, or names one that does not exist (February 30th, hour 24).
 */
export function normalizeInstant(value: string): string | null {
  const match = INSTANT.exec(value);
  if (match === null) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', , sign, offH, offM] =
    match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  const daysInMonth = utcDate(y, mo, 0, 0, 0, 0, 0).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) return null;
  let offsetMinutes = 0;
  if (sign !== undefined) {
    if (Number(offH) > 23 || Number(offM) > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  }
  const millis = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const date = new Date(utcDate(y, mo - 1, d, h, mi, s, millis).getTime() - offsetMinutes * 60_000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Like Date.UTC, without its mapping of years 0–99 to 1900–1999. */
function utcDate(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(y, mo, d);
  date.setUTCHours(h, mi, s, ms);
  return date;
}

function logFilter(query: {
  entity_type?: string;
  entity_id?: string;
  actor_id?: string;
  actor_type?: ActorType;
  operation?: AuditOperation;
  start_date?: string;
  end_date?: string;
}): LogFilter {
  const errors: FieldErrors = {};
  const instant = (field: 'start_date' | 'end_date'): string | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    const normalized = normalizeInstant(value);
    if (normalized === null) errors[field] = ['must be an ISO 8601 date or date-time'];
    return normalized ?? undefined;
  };
  const startDate = instant('start_date');
  const endDate = instant('end_date');
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return {
    entityType: query.entity_type,
    entityId: query.entity_id,
    actorId: query.actor_id,
    actorType: query.actor_type,
    operation: query.operation,
    startDate,
    endDate,
  };
}

const tags = ['logs'];

export function registerLogRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/logs',
    {
      config: { access: { permission: 'log:read' } },
      schema: {
        summary: "The tenant's audit log",
        description: 'Newest first.',
        tags,
        querystring: ListQuery,
        response: { 200: paginated(LogSchema) },
      },
    },
    async (request) => {
      const { page, size } = request.query;
      const filter = logFilter(request.query);
      const result = await services.logs.list(principalOf(request), filter, { page, size });
      return paginate(result.items, result.total, page, size);
    },
  );

  app.get(
    '/logs/entity-types',
    {
      config: { access: { permission: 'log:read' } },
      schema: {
        summary: 'Entity types of log entries',
        tags,
        response: { 200: Type.Array(EntityTypeSchema) },
      },
    },
    async (request) => services.logs.entityTypes(principalOf(request)),
  );
}

import type { paths } from '../../../../client/schema.js';
import type { LogEntry } from '../api/client';

type LogQuery = NonNullable<paths['/logs']['get']['parameters']['query']>;

export const ACTOR_TYPES = ['application', 'user', 'operator'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
export const OPERATIONS = ['create', 'read', 'update', 'delete', 'use', 'invoke'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * An audit entry with the fields `GET /logs` documents as extensions: `actor_name` (the
 * application's name, the member's e-mail, "operator"; null once unknown) and `revealed` (on token
 * reads and uses: whether data came back in clear). Optional here: a server that does not send them
 * yet gets ids and no reveal mark instead.
 */
export type AuditEntry = LogEntry & {
  readonly actor_name?: string | null;
  readonly revealed?: boolean | null;
};

/** The filters `GET /logs` takes besides entity and dates. */
export interface ActorFilters {
  readonly actor_id?: string;
  readonly actor_type?: ActorType;
  readonly operation?: Operation;
}

/** A `GET /logs` query with the actor and operation filters (sent as they are; see `matchesFilters`). */
export function logQuery(query: LogQuery & ActorFilters): LogQuery {
  return query;
}

/**
 * Whether an entry passes the actor and operation filters. The server filters; this keeps the
 * screen right against a server that ignores a filter it does not know yet.
 */
export function matchesFilters(entry: AuditEntry, filters: ActorFilters): boolean {
  return (
    (filters.actor_id === undefined || entry.actor_id === filters.actor_id) &&
    (filters.actor_type === undefined || entry.actor_type === filters.actor_type) &&
    (filters.operation === undefined || entry.operation === filters.operation)
  );
}

/** Who did it, for people: the name the server gives, else the actor's type and the start of its id. */
export function actorLabel(entry: AuditEntry): string {
  if (typeof entry.actor_name === 'string' && entry.actor_name !== '') return entry.actor_name;
  if (entry.actor_type === 'operator') return 'operator';
  if (entry.actor_type === null) return 'unknown';
  return entry.actor_id === null ? entry.actor_type : `${entry.actor_type} ${entry.actor_id.slice(0, 8)}`;
}

/** Entity types whose entries are about tokens (the older token types keep their own). */
const TOKEN_ENTITIES: ReadonlySet<string> = new Set(['token', 'card', 'bank']);

/**
 * A page view: a member reading the tenant's administration (lists of applications, members,
 * proxies, the tenant itself), which the console does every time a screen opens. Token reads are
 * never page views: who read which data is what the log is for.
 */
export function isPageView(entry: AuditEntry): boolean {
  return entry.operation === 'read' && entry.actor_type === 'user' && !TOKEN_ENTITIES.has(entry.entity_type);
}

export type AuditRow =
  | { readonly kind: 'entry'; readonly entry: AuditEntry }
  | { readonly kind: 'views'; readonly key: string; readonly entries: readonly AuditEntry[] };

/**
 * The entries as rows, runs of consecutive page views by the same member folded into one row
 * ("12 reads of applications, members"), so the console's own screens do not bury the entries
 * that matter. A lone page view stays a row of its own.
 */
export function groupPageViews(entries: readonly AuditEntry[]): AuditRow[] {
  const rows: AuditRow[] = [];
  let run: AuditEntry[] = [];
  const flush = () => {
    if (run.length === 1) rows.push({ kind: 'entry', entry: run[0]! });
    else if (run.length > 1) rows.push({ kind: 'views', key: run[0]!.id, entries: run });
    run = [];
  };
  for (const entry of entries) {
    if (isPageView(entry) && (run.length === 0 || run[0]!.actor_id === entry.actor_id)) {
      run.push(entry);
      continue;
    }
    flush();
    if (isPageView(entry)) run.push(entry);
    else rows.push({ kind: 'entry', entry });
  }
  flush();
  return rows;
}

/** "applications ×5, tenant ×2": what a run of page views read. */
export function viewedSummary(entries: readonly AuditEntry[]): string {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.entity_type, (counts.get(e.entity_type) ?? 0) + 1);
  return [...counts].map(([type, n]) => (n === 1 ? type : `${type} ×${n}`)).join(', ');
}

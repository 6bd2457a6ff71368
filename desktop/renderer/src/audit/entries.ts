import type { paths } from '../../../../client/schema.js';
import type { LogEntry } from '../api/client';

type LogQuery = NonNullable<paths['/logs']['get']['parameters']['query']>;

/** The actor types and operations `GET /logs` filters by (checked against its schema). */
export const ACTOR_TYPES = ['application', 'user', 'operator'] as const satisfies readonly NonNullable<
  LogQuery['actor_type']
>[];
export type ActorType = (typeof ACTOR_TYPES)[number];
export const OPERATIONS = [
  'create',
  'read',
  'update',
  'delete',
  'use',
  'invoke',
] as const satisfies readonly NonNullable<LogQuery['operation']>[];
export type Operation = (typeof OPERATIONS)[number];

/**
 * An audit entry as `GET /logs` returns it, `actor_name` included (the application's name, the
 * member's e-mail, "operator"; null once the actor no longer exists).
 */
export type AuditEntry = LogEntry;

/**
 * Who did it, for people: the name the server gives. Without one, the actor's type and the start of
 * its id: an application the server does not name was deleted since; no actor at all is the vault
 * itself (an expiry).
 */
export function actorLabel(entry: AuditEntry): string {
  if (entry.actor_name !== null && entry.actor_name !== '') return entry.actor_name;
  if (entry.actor_type === 'operator') return 'operator';
  if (entry.actor_type === null) return 'the vault';
  if (entry.actor_id === null) return entry.actor_type;
  const id = entry.actor_id.slice(0, 8);
  return entry.actor_type === 'application' ? `deleted application ${id}` : `${entry.actor_type} ${id}`;
}

/** How a read went, for people: "revealed", "masked", or null for entries that are not reads. */
export function readMark(entry: AuditEntry): 'revealed' | 'masked' | null {
  if (entry.revealed === null) return null;
  return entry.revealed ? 'revealed' : 'masked';
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

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import {
  ACTOR_TYPES,
  OPERATIONS,
  actorLabel,
  groupPageViews,
  readMark,
  viewedSummary,
  type ActorType,
  type AuditEntry,
  type Operation,
} from '../audit/entries';
import { VerifyChain } from '../audit/verify-chain';
import { Id } from '../components/copy';
import { Field } from '../components/field';
import { Pager } from '../components/pager';
import { QueryView } from '../components/resource-table';
import { Empty } from '../components/states';

const PAGE_SIZE = 25;
/** How often "Follow" asks for new entries: the log is read, never pushed, so the tail polls. */
export const TAIL_INTERVAL_MS = 2_000;

interface Filters {
  entity_type: string;
  entity_id: string;
  actor_type: '' | ActorType;
  actor_id: string;
  operation: '' | Operation;
  start_date: string;
  end_date: string;
}
const NO_FILTERS: Filters = {
  entity_type: '',
  entity_id: '',
  actor_type: '',
  actor_id: '',
  operation: '',
  start_date: '',
  end_date: '',
};

/**
 * Only the filters that are set, every one applied by the server; dates from the inputs as UTC
 * midnights (start) and ends of day.
 */
function queryOf(filters: Filters, page: number) {
  return {
    page,
    size: PAGE_SIZE,
    ...(filters.entity_type === '' ? {} : { entity_type: filters.entity_type }),
    ...(filters.entity_id === '' ? {} : { entity_id: filters.entity_id }),
    ...(filters.actor_type === '' ? {} : { actor_type: filters.actor_type }),
    ...(filters.actor_id === '' ? {} : { actor_id: filters.actor_id }),
    ...(filters.operation === '' ? {} : { operation: filters.operation }),
    ...(filters.start_date === '' ? {} : { start_date: `${filters.start_date}T00:00:00.000Z` }),
    ...(filters.end_date === '' ? {} : { end_date: `${filters.end_date}T23:59:59.999Z` }),
  };
}

export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [following, setFollowing] = useState(false);
  const [grouped, setGrouped] = useState(true);
  const types = useQuery({
    queryKey: ['entity-types'],
    queryFn: () => unwrap(api.GET('/logs/entity-types')),
  });
  const logs = useQuery({
    queryKey: ['logs', filters, page],
    queryFn: () => unwrap(api.GET('/logs', { params: { query: queryOf(filters, page) } })),
    placeholderData: keepPreviousData,
    // Following shows the newest page and asks again while it is on.
    refetchInterval: following && page === 1 ? TAIL_INTERVAL_MS : false,
  });
  const set = (key: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setDraft({ ...draft, [key]: e.target.value });
  const apply = (next: Filters) => {
    setDraft(next);
    setPage(1);
    setFilters(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(draft);
  };
  const onlyActor = (entry: AuditEntry) =>
    apply({
      ...filters,
      actor_type: (entry.actor_type ?? '') as Filters['actor_type'],
      actor_id: entry.actor_id ?? '',
    });
  return (
    <section aria-labelledby="audit-title">
      <div className="page-header">
        <h1 id="audit-title">Audit log</h1>
        <div className="acting-as">
          <label className="inline">
            <input
              type="checkbox"
              checked={following}
              onChange={(e) => {
                setFollowing(e.target.checked);
                if (e.target.checked) setPage(1);
              }}
            />
            Follow new entries
          </label>
          <VerifyChain />
        </div>
      </div>
      {following && (
        <p className="hint" role="status">
          Following: the newest entries appear as they are written
          {logs.dataUpdatedAt > 0 ? ` (checked ${new Date(logs.dataUpdatedAt).toLocaleTimeString()})` : ''}.
        </p>
      )}
      <form noValidate className="filters" onSubmit={submit} aria-label="Filters">
        <Field label="Entity type" name="entity_type" error={logs.error}>
          {(p) => (
            <select {...p} value={draft.entity_type} onChange={set('entity_type')}>
              <option value="">Any</option>
              {types.data?.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.display_name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Entity id" name="entity_id" error={logs.error}>
          {(p) => <input {...p} value={draft.entity_id} onChange={set('entity_id')} />}
        </Field>
        <Field label="Operation" name="operation" error={logs.error}>
          {(p) => (
            <select {...p} value={draft.operation} onChange={set('operation')}>
              <option value="">Any</option>
              {OPERATIONS.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Actor type" name="actor_type" error={logs.error}>
          {(p) => (
            <select {...p} value={draft.actor_type} onChange={set('actor_type')}>
              <option value="">Any</option>
              {ACTOR_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Actor id" name="actor_id" error={logs.error}>
          {(p) => <input {...p} value={draft.actor_id} onChange={set('actor_id')} />}
        </Field>
        <Field label="From" name="start_date" error={logs.error}>
          {(p) => <input {...p} type="date" value={draft.start_date} onChange={set('start_date')} />}
        </Field>
        <Field label="To" name="end_date" error={logs.error}>
          {(p) => <input {...p} type="date" value={draft.end_date} onChange={set('end_date')} />}
        </Field>
        <button type="submit">Filter</button>
        <button type="button" onClick={() => apply(NO_FILTERS)}>
          Clear
        </button>
      </form>
      <label className="inline">
        <input type="checkbox" checked={grouped} onChange={(e) => setGrouped(e.target.checked)} />
        Fold members' page views (reads of lists and settings) into one row
      </label>
      <QueryView query={logs} what="audit entries">
        {(result) => {
          const entries = result.data;
          if (entries.length === 0) return <Empty>No audit entries match.</Empty>;
          return (
            <>
              <AuditTable entries={entries} grouped={grouped} onlyActor={onlyActor} />
              <Pager pagination={result.pagination} onPage={setPage} />
            </>
          );
        }}
      </QueryView>
    </section>
  );
}

function AuditTable({
  entries,
  grouped,
  onlyActor,
}: {
  readonly entries: readonly AuditEntry[];
  readonly grouped: boolean;
  readonly onlyActor: (entry: AuditEntry) => void;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const rows = grouped
    ? groupPageViews(entries)
    : entries.map((entry) => ({ kind: 'entry' as const, entry }));
  const toggle = (key: string) => {
    const next = new Set(open);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setOpen(next);
  };
  return (
    <div className="table-wrap">
      <table className="audit" aria-label="Audit entries">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Entity</th>
            <th scope="col">Operation</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) =>
            row.kind === 'entry' ? (
              <EntryRow key={row.entry.id} entry={row.entry} onlyActor={onlyActor} />
            ) : (
              <Fragment key={row.key}>
                <tr className="page-views">
                  <td>{new Date(row.entries[0]!.created_at).toLocaleString()}</td>
                  <td>{actorLabel(row.entries[0]!)}</td>
                  <td colSpan={3}>
                    {row.entries.length} page views: read {viewedSummary(row.entries)}{' '}
                    <button
                      type="button"
                      className="link"
                      aria-expanded={open.has(row.key)}
                      onClick={() => toggle(row.key)}
                    >
                      {open.has(row.key) ? 'Hide them' : 'Show them'}
                    </button>
                  </td>
                </tr>
                {open.has(row.key) &&
                  row.entries.map((entry) => (
                    <EntryRow key={entry.id} entry={entry} onlyActor={onlyActor} folded />
                  ))}
              </Fragment>
            ),
          )}
        </tbody>
      </table>
    </div>
  );
}

function EntryRow({
  entry,
  onlyActor,
  folded = false,
}: {
  readonly entry: AuditEntry;
  readonly onlyActor: (entry: AuditEntry) => void;
  readonly folded?: boolean;
}) {
  const actor = actorLabel(entry);
  const mark = readMark(entry);
  return (
    <tr className={folded ? 'folded' : undefined}>
      <td>{new Date(entry.created_at).toLocaleString()}</td>
      <td>
        <span className="actor" title={entry.actor_id ?? undefined}>
          {actor}
        </span>
        {entry.actor_type !== null && (
          <button
            type="button"
            className="link small"
            onClick={() => onlyActor(entry)}
            aria-label={`Only entries by ${actor}`}
          >
            only
          </button>
        )}
      </td>
      <td>
        {entry.entity_type}{' '}
        {entry.entity_ids === null ? (
          <Id value={entry.entity_id} of={`this ${entry.entity_type}`} />
        ) : (
          <EntityIds name={entry.entity_id} type={entry.entity_type} ids={entry.entity_ids} />
        )}
      </td>
      <td>
        {entry.operation}
        {mark !== null && <span className={`badge ${mark}`}>{mark}</span>}
      </td>
      <td>{entry.message}</td>
    </tr>
  );
}

/** One entry standing for several ids (a list or a search): how many, each id on demand. */
function EntityIds({
  name,
  type,
  ids,
}: {
  readonly name: string;
  readonly type: string;
  readonly ids: readonly string[];
}) {
  return (
    <details className="entity-ids">
      <summary>
        {name}: {ids.length.toLocaleString()} {ids.length === 1 ? 'id' : 'ids'}
      </summary>
      <ul>
        {ids.map((id) => (
          <li key={id}>
            <Id value={id} of={`this ${type}`} />
          </li>
        ))}
      </ul>
    </details>
  );
}

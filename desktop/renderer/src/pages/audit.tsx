import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { Field } from '../components/field';
import { Pager } from '../components/pager';
import { Empty, Loading, ProblemAlert } from '../components/states';

const PAGE_SIZE = 25;
/** How often "Follow" asks for new entries: the log is read, never pushed, so the tail polls. */
export const TAIL_INTERVAL_MS = 2_000;

interface Filters {
  entity_type: string;
  entity_id: string;
  start_date: string;
  end_date: string;
}
const NO_FILTERS: Filters = { entity_type: '', entity_id: '', start_date: '', end_date: '' };

/** Only the filters that are set; dates from the inputs as UTC midnights (start) and ends of day. */
function queryOf(filters: Filters, page: number) {
  return {
    page,
    size: PAGE_SIZE,
    ...(filters.entity_type === '' ? {} : { entity_type: filters.entity_type }),
    ...(filters.entity_id === '' ? {} : { entity_id: filters.entity_id }),
    ...(filters.start_date === '' ? {} : { start_date: `${filters.start_date}T00:00:00.000Z` }),
    ...(filters.end_date === '' ? {} : { end_date: `${filters.end_date}T23:59:59.999Z` }),
  };
}

export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [following, setFollowing] = useState(false);
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
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setFilters(draft);
  };
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
      <form noValidate className="filters" onSubmit={submit}>
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
        <Field label="From" name="start_date" error={logs.error}>
          {(p) => <input {...p} type="date" value={draft.start_date} onChange={set('start_date')} />}
        </Field>
        <Field label="To" name="end_date" error={logs.error}>
          {(p) => <input {...p} type="date" value={draft.end_date} onChange={set('end_date')} />}
        </Field>
        <button type="submit">Filter</button>
      </form>
      {logs.isPending && <Loading what="audit entries" />}
      <ProblemAlert error={logs.error} withFields />
      {logs.data !== undefined &&
        (logs.data.data.length === 0 ? (
          <Empty>No audit entries match.</Empty>
        ) : (
          <>
            <table className="audit">
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
                {logs.data.data.map((entry) => (
                  <tr key={entry.id}>
                    <td>{new Date(entry.created_at).toLocaleString()}</td>
                    <td>
                      {entry.actor_type}
                      {entry.actor_id === null ? '' : ` ${entry.actor_id.slice(0, 8)}`}
                    </td>
                    <td>
                      {entry.entity_type} <code>{entry.entity_id}</code>
                    </td>
                    <td>{entry.operation}</td>
                    <td>{entry.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager pagination={logs.data.pagination} onPage={setPage} />
          </>
        ))}
    </section>
  );
}

/** The tenant's hash chain checked by the server (the same check as `svc logs verify`). */
function VerifyChain() {
  const verify = useMutation({ mutationFn: () => unwrap(api.GET('/logs/verify')) });
  const result = verify.data;
  return (
    <div className="verify-chain">
      <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
        {verify.isPending ? 'Verifying…' : 'Verify chain'}
      </button>
      <div role="status" aria-live="polite">
        {result !== undefined &&
          (result.ok ? (
            <span className="verified">
              Chain intact: {result.entries} {result.entries === 1 ? 'entry' : 'entries'} verified.
            </span>
          ) : (
            <span className="broken">
              Chain broken at entry #{result.first_break?.seq}
              {result.first_break?.entry_id ? ` (${result.first_break.entry_id})` : ''}:{' '}
              {result.first_break?.reason}.
            </span>
          ))}
      </div>
      <ProblemAlert error={verify.error} title="Verification failed" />
    </div>
  );
}

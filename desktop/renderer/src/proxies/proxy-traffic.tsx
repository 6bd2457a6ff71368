import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/resource-table';
import { invocationOf, statusClass } from './traffic';

/** Invocations shown per proxy. */
export const TRAFFIC_ROWS = 10;

/**
 * The last requests through one proxy, read from the audit log: when, method and destination
 * host, status, how long the vault took, and who called. Never bodies or paths: the log has none.
 */
export function ProxyTraffic({ proxyId, name }: { readonly proxyId: string; readonly name: string }) {
  const traffic = useQuery({
    queryKey: ['proxy-traffic', proxyId],
    queryFn: () =>
      unwrap(
        api.GET('/logs', {
          params: {
            // The server keeps only this proxy's invocations: a page is the last ones.
            query: {
              entity_type: 'proxy',
              entity_id: proxyId,
              operation: 'invoke',
              page: 1,
              size: TRAFFIC_ROWS,
            },
          },
        }),
      ),
  });
  return (
    <section className="traffic" aria-label={`Last requests through ${name}`}>
      <div className="section-header">
        <h3>Last requests</h3>
        <button type="button" onClick={() => void traffic.refetch()} disabled={traffic.isFetching}>
          Refresh<span className="visually-hidden"> the requests through {name}</span>
        </button>
      </div>
      <QueryView query={traffic} what="requests">
        {(page) => {
          const rows = page.data.map(invocationOf).filter((i) => i !== null);
          if (rows.length === 0) return <p className="hint">No requests yet.</p>;
          return (
            <div className="table-wrap">
              <table className="compact" aria-label={`Requests through ${name}`}>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Request</th>
                    <th scope="col">Status</th>
                    <th scope="col">Time</th>
                    <th scope="col">Caller</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.id}>
                      <td>{new Date(r.at).toLocaleString()}</td>
                      <td>
                        {r.method} <code>{r.host}</code>
                      </td>
                      <td>
                        <span className={`status ${statusClass(r.status)}`}>{r.status}</span>
                      </td>
                      <td>{r.durationMs === null ? '—' : `${r.durationMs.toLocaleString()} ms`}</td>
                      <td>{r.caller}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        }}
      </QueryView>
    </section>
  );
}

import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, Loading, ProblemAlert } from '../components/states';
import { MonthlyChart } from '../components/monthly-chart';

export function OverviewPage() {
  const health = useQuery({ queryKey: ['healthz'], queryFn: () => unwrap(api.GET('/healthz')) });
  const usage = useQuery({
    queryKey: ['usage'],
    queryFn: () => unwrap(api.GET('/tenants/self/reports/usage')),
  });
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <div className="cards">
        <article className="card" aria-labelledby="vault-title">
          <h2 id="vault-title">Vault</h2>
          {health.isPending && <Loading what="vault status" />}
          <ProblemAlert error={health.error} withFields />
          {health.data !== undefined && (
            <dl className="facts">
              <dt>Status</dt>
              <dd>{health.data.status}</dd>
              <dt>Server</dt>
              <dd>
                <code>{window.location.origin}</code>
              </dd>
            </dl>
          )}
        </article>
        <article className="card" aria-labelledby="mat-title">
          <h2 id="mat-title">Monthly active tokens</h2>
          {usage.isPending && <Loading what="usage" />}
          <ProblemAlert error={usage.error} withFields />
          {usage.data !== undefined && (
            <>
              <p className="big-number">
                {usage.data.token_report.monthly_active_tokens}
                <span> of {usage.data.token_report.included_monthly_active_tokens} included</span>
              </p>
              <meter
                min={0}
                max={Math.max(usage.data.token_report.included_monthly_active_tokens, 1)}
                value={usage.data.token_report.monthly_active_tokens}
                aria-label="Monthly active tokens against the included number"
              />
              <MonthlyChart
                history={usage.data.token_report.monthly_active_token_history}
                included={usage.data.token_report.included_monthly_active_tokens}
              />
            </>
          )}
        </article>
      </div>
      <article className="card" aria-labelledby="types-title">
        <h2 id="types-title">Tokens by type</h2>
        {usage.data !== undefined &&
          (Object.keys(usage.data.token_report.metrics_by_type).length === 0 ? (
            <Empty>No tokens yet. Create one on the Tokens screen or tokenize over the API.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Newest</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(usage.data.token_report.metrics_by_type).map(([type, m]) => (
                  <tr key={type}>
                    <td>{type}</td>
                    <td>{m.count}</td>
                    <td>
                      {m.last_created_at === undefined ? '—' : new Date(m.last_created_at).toLocaleString()}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </article>
    </section>
  );
}

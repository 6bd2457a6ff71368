import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { api, unwrap, type UsageReport } from '../api/client';
import { Headroom } from '../components/headroom';
import { formatCount, usageLevel } from '../components/numbers';
import { QueryView } from '../components/resource-table';
import { Empty, Loading } from '../components/states';

/** Recharts is loaded with the chart, not with the console. */
const MonthlyChart = lazy(() =>
  import('../components/monthly-chart').then((m) => ({ default: m.MonthlyChart })),
);

export function OverviewPage() {
  const health = useQuery({ queryKey: ['healthz'], queryFn: () => unwrap(api.GET('/healthz')) });
  const usage = useQuery({
    queryKey: ['usage'],
    queryFn: () => unwrap(api.GET('/tenants/self/reports/usage')),
  });
  const headroom = useQuery({ queryKey: ['headroom'], queryFn: () => unwrap(api.GET('/vault/headroom')) });
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <div className="cards">
        <article className="card" aria-labelledby="vault-title">
          <h2 id="vault-title">Vault</h2>
          <QueryView query={health} what="vault status">
            {(h) => (
              <dl className="facts">
                <dt>Status</dt>
                <dd>{h.status}</dd>
                <dt>Server</dt>
                <dd>
                  <code>{window.location.origin}</code>
                </dd>
              </dl>
            )}
          </QueryView>
          <h3 id="headroom-title">Room left</h3>
          <QueryView query={headroom} what="the vault's headroom">
            {(h) => <Headroom headroom={h} />}
          </QueryView>
        </article>
        <article className="card" aria-labelledby="mat-title">
          <h2 id="mat-title">Monthly active tokens</h2>
          <QueryView query={usage} what="usage">
            {(u) => <Usage report={u.token_report} />}
          </QueryView>
        </article>
      </div>
      <article className="card" aria-labelledby="types-title">
        <h2 id="types-title">Tokens by type</h2>
        {usage.data !== undefined &&
          (Object.keys(usage.data.token_report.metrics_by_type).length === 0 ? (
            <Empty>No tokens yet. Create one on the Tokens screen or tokenize over the API.</Empty>
          ) : (
            <div className="table-wrap">
              <table aria-label="Tokens by type">
                <thead>
                  <tr>
                    <th scope="col">Type</th>
                    <th scope="col" className="number">
                      Tokens
                    </th>
                    <th scope="col">Newest</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(usage.data.token_report.metrics_by_type).map(([type, m]) => (
                    <tr key={type}>
                      <td>{type}</td>
                      <td className="number">{formatCount(m.count)}</td>
                      <td>
                        {m.last_created_at === undefined ? '—' : new Date(m.last_created_at).toLocaleString()}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
      </article>
    </section>
  );
}

function Usage({ report }: { readonly report: UsageReport['token_report'] }) {
  const used = report.monthly_active_tokens;
  const included = report.included_monthly_active_tokens;
  const level = usageLevel(used, included);
  return (
    <>
      <p className={`big-number ${level}`}>
        {formatCount(used)}
        <span> of {formatCount(included)} included</span>
      </p>
      {level === 'over' && (
        <p className="over-note">{formatCount(used - included)} over the included number this month.</p>
      )}
      <meter
        min={0}
        max={Math.max(included, used, 1)}
        low={included * 0.8}
        high={included}
        optimum={0}
        value={used}
        aria-label="Monthly active tokens against the included number"
      />
      <Suspense fallback={<Loading what="the chart" />}>
        <MonthlyChart history={report.monthly_active_token_history} included={included} />
      </Suspense>
    </>
  );
}

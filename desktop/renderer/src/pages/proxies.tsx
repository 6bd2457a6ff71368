import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type ProxyView } from '../api/client';
import { CopyButton, Id } from '../components/copy';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { QueryView } from '../components/resource-table';
import { Empty } from '../components/states';
import { exampleCall } from '../proxies/example-call';
import { ProxyDialog } from '../proxies/proxy-dialog';
import { ProxyTraffic } from '../proxies/proxy-traffic';
import { TestRequestDialog } from '../proxies/test-request';

export function ProxiesPage() {
  const [editing, setEditing] = useState<ProxyView | 'new' | null>(null);
  const [testing, setTesting] = useState<ProxyView | null>(null);
  const list = useQuery({
    queryKey: ['proxies'],
    queryFn: () => unwrap(api.GET('/proxies', { params: { query: { page: 1, size: 100 } } })),
  });
  const deletion = useDeletion(
    (p: ProxyView) => unwrap(api.DELETE('/proxies/{id}', { params: { path: { id: p.id } } })),
    'proxies',
    (p) => `Proxy "${p.name}" deleted; requests with its key are refused.`,
  );
  return (
    <section aria-labelledby="proxies-title">
      <div className="page-header">
        <h1 id="proxies-title">Proxies</h1>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New proxy
        </button>
      </div>
      <p className="hint">
        A proxy forwards requests sent to <code>/proxy</code> to its destination, with token expressions in
        the body and headers detokenized, through optional request and response transforms.
      </p>
      <QueryView query={list} what="proxies">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No proxies yet.</Empty>
          ) : (
            <ul className="proxy-list">
              {page.data.map((p) => (
                <ProxyCard
                  key={p.id}
                  proxy={p}
                  onEdit={() => setEditing(p)}
                  onTest={() => setTesting(p)}
                  onDelete={() => deletion.ask(p)}
                />
              ))}
            </ul>
          )
        }
      </QueryView>
      {editing !== null && (
        <ProxyDialog proxy={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />
      )}
      {testing !== null && <TestRequestDialog proxy={testing} onClose={() => setTesting(null)} />}
      <DeletionDialog deletion={deletion} title="Delete proxy" confirmLabel="Delete proxy">
        {(p) => (
          <p>
            Delete the proxy <strong>{p.name}</strong>? Requests with its key will be refused.
          </p>
        )}
      </DeletionDialog>
    </section>
  );
}

/** One proxy: what it is, how to call it (key and a ready-to-copy call), and its last requests. */
function ProxyCard({
  proxy,
  onEdit,
  onTest,
  onDelete,
}: {
  readonly proxy: ProxyView;
  readonly onEdit: () => void;
  readonly onTest: () => void;
  readonly onDelete: () => void;
}) {
  const call = exampleCall(window.location.origin, proxy);
  const transforms = [proxy.request_transform && 'request', proxy.response_transform && 'response']
    .filter(Boolean)
    .join(', ');
  return (
    <li className="card proxy" aria-labelledby={`proxy-${proxy.id}`}>
      <div className="section-header">
        <h2 id={`proxy-${proxy.id}`}>{proxy.name}</h2>
        <div className="actions">
          <button type="button" onClick={onEdit} aria-label={`Edit ${proxy.name}`}>
            Edit
          </button>
          <button type="button" onClick={onTest} aria-label={`Test ${proxy.name}`}>
            Test
          </button>
          <button type="button" className="danger" onClick={onDelete} aria-label={`Delete ${proxy.name}`}>
            Delete
          </button>
        </div>
      </div>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <Id value={proxy.id} of={proxy.name} full />
        </dd>
        <dt>Key</dt>
        <dd>
          <span className="id">
            <code data-secret>{proxy.key}</code>
            <CopyButton value={proxy.key} label={`Copy the key of ${proxy.name}`} />
          </span>
        </dd>
        <dt>Destination</dt>
        <dd>
          <code>{proxy.destination_url}</code>
        </dd>
        <dt>Callers</dt>
        <dd>
          {proxy.require_auth ? 'must give an application key (SVC-API-KEY)' : 'need only the proxy key'}
        </dd>
        <dt>Transforms</dt>
        <dd>{transforms === '' ? 'none' : transforms}</dd>
      </dl>
      <div className="example-call">
        <div className="section-header">
          <h3>Example call</h3>
          <CopyButton value={call} label={`Copy the example call of ${proxy.name}`} />
        </div>
        <pre data-secret>{call}</pre>
      </div>
      <ProxyTraffic proxyId={proxy.id} name={proxy.name} />
    </li>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api, currentTokenKey, fieldErrorsOf, unwrap } from '../api/client';
import { CodeEditor } from '../code/code-editor';
import { compileErrorOf, type CompileError } from '../code/compile-error';
import { pretty } from '../code/json-text';
import { DeletionDialog, useDeletion } from '../components/deletion';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { Empty, Loading, ProblemAlert } from '../components/states';
import { useSession } from '../session/session';

interface ProxyView {
  readonly id: string;
  readonly key: string;
  readonly name: string;
  readonly destination_url: string;
  /** Absent when the proxy has none. */
  readonly request_transform?: { code: string };
  readonly response_transform?: { code: string };
  readonly require_auth: boolean;
}

export const NEW_TRANSFORM_CODE = `// Receives { body, headers, configuration } and returns what is sent on.
module.exports = async function (req) {
  return { body: req.body, headers: req.headers };
};
`;

/** The compile errors the server names at a transform (`request_transform.code`). */
function transformErrors(error: unknown, field: string): CompileError[] {
  return fieldErrorsOf(error, field).flatMap((m) => {
    const at = compileErrorOf(m);
    return at === null ? [{ line: 1, column: 1, message: m }] : [at];
  });
}

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
      {list.isPending && <Loading what="proxies" />}
      <ProblemAlert error={list.error} />
      {list.data !== undefined &&
        (list.data.data.length === 0 ? (
          <Empty>No proxies yet.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Destination</th>
                <th scope="col">Transforms</th>
                <th scope="col">Key required</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>
                    <code>{p.destination_url}</code>
                  </td>
                  <td>
                    {[p.request_transform && 'request', p.response_transform && 'response']
                      .filter(Boolean)
                      .join(', ') || '—'}
                  </td>
                  <td>{p.require_auth ? 'yes' : 'no'}</td>
                  <td className="actions">
                    <button type="button" onClick={() => setEditing(p)}>
                      Edit {p.name}
                    </button>
                    <button type="button" onClick={() => setTesting(p)}>
                      Test {p.name}
                    </button>
                    <button type="button" className="danger" onClick={() => deletion.ask(p)}>
                      Delete {p.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
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

function ProxyDialog({ proxy, onClose }: { readonly proxy: ProxyView | null; readonly onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(proxy?.name ?? '');
  const [destination, setDestination] = useState(proxy?.destination_url ?? 'https://');
  const [requireAuth, setRequireAuth] = useState(proxy?.require_auth ?? true);
  const [requestCode, setRequestCode] = useState(proxy?.request_transform?.code ?? '');
  const [responseCode, setResponseCode] = useState(proxy?.response_transform?.code ?? '');
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name,
        destination_url: destination,
        require_auth: requireAuth,
        request_transform: requestCode.trim() === '' ? null : { code: requestCode },
        response_transform: responseCode.trim() === '' ? null : { code: responseCode },
      };
      return proxy === null
        ? unwrap(api.POST('/proxies', { body }))
        : unwrap(api.PUT('/proxies/{id}', { params: { path: { id: proxy.id } }, body }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['proxies'] });
      onClose();
    },
  });
  const requestErrors = useMemo(() => transformErrors(save.error, 'request_transform.code'), [save.error]);
  const responseErrors = useMemo(() => transformErrors(save.error, 'response_transform.code'), [save.error]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Dialog
      title={proxy === null ? 'New proxy' : `Edit ${proxy.name}`}
      open
      onClose={onClose}
      className="dialog wide"
    >
      <form noValidate className="dialog-body" onSubmit={submit}>
        <ProblemAlert error={save.error} />
        <Field label="Name" name="name" error={save.error}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field
          label="Destination URL"
          name="destination_url"
          error={save.error}
          hint="https:// with a host name; the path after /proxy and the query are appended."
        >
          {(p) => (
            <input {...p} type="url" value={destination} onChange={(e) => setDestination(e.target.value)} />
          )}
        </Field>
        <label className="inline">
          <input type="checkbox" checked={requireAuth} onChange={(e) => setRequireAuth(e.target.checked)} />
          Callers must give an application key (SVC-API-KEY)
        </label>
        <CodeEditor
          label="Request transform (JavaScript, optional)"
          language="javascript"
          value={requestCode}
          onChange={setRequestCode}
          errors={requestErrors}
          hint="Leave empty to forward the request as it is."
        />
        {requestCode === '' && (
          <button type="button" onClick={() => setRequestCode(NEW_TRANSFORM_CODE)}>
            Start a request transform
          </button>
        )}
        <CodeEditor
          label="Response transform (JavaScript, optional)"
          language="javascript"
          value={responseCode}
          onChange={setResponseCode}
          errors={responseErrors}
          hint="Leave empty to answer the destination's response as it is."
        />
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            Save proxy
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const;

interface ProxyAnswer {
  readonly status: number;
  /** The destination's status; absent when the vault itself failed (a `proxy_error`). */
  readonly destinationStatus: string | null;
  readonly contentType: string;
  readonly body: string;
}

/**
 * Sends one request through the server's /proxy route with this proxy's key, as a caller would.
 * The route takes any path, content type and body and answers the destination's bytes, which the
 * typed client (JSON in, JSON out) cannot express; hence a plain fetch to the same origin.
 */
function TestRequestDialog({ proxy, onClose }: { readonly proxy: ProxyView; readonly onClose: () => void }) {
  const { tokenApp } = useSession();
  const [method, setMethod] = useState<(typeof METHODS)[number]>('POST');
  const [path, setPath] = useState('/');
  const [body, setBody] = useState('{\n  "card": "{{ <token id> }}"\n}\n');
  const send = useMutation({
    mutationFn: async (): Promise<ProxyAnswer> => {
      const headers: Record<string, string> = { 'svc-proxy-key': proxy.key };
      const key = currentTokenKey();
      if (key !== null) headers['svc-api-key'] = key;
      const hasBody = method !== 'GET' && method !== 'DELETE';
      if (hasBody) headers['content-type'] = 'application/json';
      const suffix = path.startsWith('/') ? path : `/${path}`;
      const response = await fetch(`/proxy${suffix === '/' ? '' : suffix}`, {
        method,
        headers,
        credentials: 'omit',
        ...(hasBody ? { body } : {}),
      });
      return {
        status: response.status,
        destinationStatus: response.headers.get('svc-proxy-destination-status'),
        contentType: response.headers.get('content-type') ?? '',
        body: await response.text(),
      };
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  const answer = send.data;
  return (
    <Dialog
      title={`Send a test request through ${proxy.name}`}
      open
      onClose={onClose}
      className="dialog wide"
    >
      <form noValidate className="dialog-body" onSubmit={submit}>
        <p className="hint">
          Goes to <code>{proxy.destination_url}</code> through the vault.{' '}
          {proxy.require_auth &&
            (tokenApp === null
              ? 'This proxy needs an application key: give one on the Tokens screen, or the vault refuses the request.'
              : `Sent with the key of ${tokenApp.name}.`)}
        </p>
        <div className="inline-form">
          <label>
            <span>Method</span>
            <select value={method} onChange={(e) => setMethod(e.target.value as (typeof METHODS)[number])}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <label>
            <span>Path after /proxy</span>
            <input value={path} onChange={(e) => setPath(e.target.value)} />
          </label>
        </div>
        {method !== 'GET' && method !== 'DELETE' && (
          <CodeEditor label="Body (JSON)" language="json" value={body} onChange={setBody} />
        )}
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="primary" disabled={send.isPending}>
            {send.isPending ? 'Sending…' : 'Send'}
          </button>
        </footer>
        <ProblemAlert error={send.error} />
        {answer !== undefined && <AnswerView answer={answer} />}
      </form>
    </Dialog>
  );
}

function AnswerView({ answer }: { readonly answer: ProxyAnswer }) {
  let shown = answer.body;
  let vaultProblem: { detail?: string; title?: string } | null = null;
  if (answer.contentType.includes('json')) {
    try {
      const parsed: unknown = JSON.parse(answer.body);
      shown = pretty(parsed);
      if (
        answer.destinationStatus === null &&
        typeof parsed === 'object' &&
        parsed !== null &&
        'proxy_error' in parsed
      )
        vaultProblem = (parsed as { proxy_error: { detail?: string; title?: string } }).proxy_error;
    } catch {
      // Not JSON after all: shown as it came.
    }
  }
  return (
    <div className="result" role="status">
      <h3>Answer</h3>
      {vaultProblem !== null ? (
        <p className="problem">
          The vault refused or failed the request ({answer.status}):{' '}
          {vaultProblem.detail ?? vaultProblem.title ?? 'no detail'}
        </p>
      ) : (
        <p>
          Destination answered {answer.destinationStatus ?? answer.status}
          {answer.contentType === '' ? '' : ` (${answer.contentType})`}.
        </p>
      )}
      <pre aria-label="Answer body">{shown}</pre>
    </div>
  );
}

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { currentTokenKey, type ProxyView } from '../api/client';
import { pretty } from '../code/json-text';
import { CodeEditor } from '../code/lazy-code-editor';
import { Dialog } from '../components/dialog';
import { ProblemAlert } from '../components/states';
import { useSession } from '../session/session';

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
export function TestRequestDialog({
  proxy,
  onClose,
}: {
  readonly proxy: ProxyView;
  readonly onClose: () => void;
}) {
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

import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrorsOf, tokenApi, unwrap, type TokenView } from '../api/client';
import { Link } from 'react-router';
import { CopyButton } from '../components/copy';
import { TokenAccessBar, TokenAccessGate } from '../tokens/token-access';
import { dataBlock, dataText } from '../tokens/data-view';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { Pager } from '../components/pager';
import { Empty, Loading, ProblemAlert } from '../components/states';
import { luhnHint } from '../tokens/luhn';
import { searchErrorPosition, splitAt } from '../tokens/search-error';

const PAGE_SIZE = 20;

/** Suggestions for the type field; the server's list and validation are the truth. */
const TYPE_SUGGESTIONS = [
  'token',
  'card',
  'bank',
  'card_number',
  'social_security_number',
  'employer_id_number',
];

export function TokensPage() {
  return (
    <TokenAccessGate title="Tokens">
      {(access) => (
        <TokensOf
          mode={access.mode}
          appName={access.appName}
          mayUseSessionApplication={access.mayUseSessionApplication}
          onChooseKey={access.onChooseKey}
        />
      )}
    </TokenAccessGate>
  );
}

/** Masked views in lists: a revealing application still shows its list masked, and reveals one token on request. */
const MASKED = { 'svc-view': 'mask' } as const;

function TokensOf({
  mode,
  appName,
  mayUseSessionApplication,
  onChooseKey,
}: {
  readonly mode: 'session-application' | 'application';
  readonly appName: string;
  readonly mayUseSessionApplication: boolean;
  readonly onChooseKey: () => void;
}) {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<TokenView | null>(null);
  const [creating, setCreating] = useState(false);

  const list = useQuery({
    queryKey: ['tokens', mode, appName, query, page],
    queryFn: () =>
      query === ''
        ? unwrap(tokenApi.GET('/tokens', { params: { query: { page, size: PAGE_SIZE }, header: MASKED } }))
        : unwrap(
            tokenApi.POST('/tokens/search', {
              params: { header: MASKED },
              body: { query, page, size: PAGE_SIZE },
            }),
          ),
    placeholderData: keepPreviousData,
  });

  const search = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setQuery(draft.trim());
  };

  return (
    <section aria-labelledby="tokens-title">
      <div className="page-header">
        <h1 id="tokens-title">Tokens</h1>
        <div className="acting-as">
          <TokenAccessBar access={{ mode, appName, mayUseSessionApplication, onChooseKey }} masked />
          <Link to="/tools">Tokenize &amp; import</Link>
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create token
          </button>
        </div>
      </div>
      <form noValidate className="search" role="search" onSubmit={search}>
        <label htmlFor="token-query">Search</label>
        <input
          id="token-query"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="type:card AND metadata.customer:42"
          aria-describedby="token-query-help"
          aria-invalid={list.isError && fieldErrorsOf(list.error, 'query').length > 0}
        />
        <button type="submit">Search</button>
        <small id="token-query-help" className="hint">
          Fields: id, type, data, fingerprint, container, metadata.&lt;key&gt;, created_at; AND, OR, NOT,
          parentheses. Empty lists every token.
        </small>
      </form>
      {list.isError && <SearchProblem error={list.error} query={query} />}
      {list.isPending && <Loading what="tokens" />}
      {list.data !== undefined &&
        (list.data.data.length === 0 ? (
          <Empty>{query === '' ? 'No tokens yet.' : 'No token matches this search.'}</Empty>
        ) : (
          <>
            <div className="table-wrap">
              <table className="tokens">
                <thead>
                  <tr>
                    <th scope="col">Id</th>
                    <th scope="col">Type</th>
                    <th scope="col">Data (masked)</th>
                    <th scope="col">Containers</th>
                    <th scope="col">Metadata</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.data.map((t) => (
                    <tr key={t.id}>
                      <td className="token-id">
                        <button
                          type="button"
                          className="link short"
                          onClick={() => setSelected(t)}
                          title={t.id}
                        >
                          {t.id}
                        </button>
                        <CopyButton value={t.id} label="Copy the id of this token" />
                      </td>
                      <td>{t.type}</td>
                      <td>
                        <MaskedData data={t.data} />
                      </td>
                      <td>{t.containers.join(', ')}</td>
                      <td>
                        {Object.entries(t.metadata ?? {})
                          .map(([k, v]) => `${k}=${v}`)
                          .join(', ')}
                      </td>
                      <td>{t.created_at === undefined ? '' : new Date(t.created_at).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager pagination={list.data.pagination} onPage={setPage} />
          </>
        ))}
      <TokenDrawer token={selected} onClose={() => setSelected(null)} />
      <CreateToken open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

/** A token's masked data on one line, or a word saying none is shown. */
function MaskedData({ data }: { readonly data: unknown }) {
  const text = dataText(data);
  return text === null ? (
    <span className="hint">not shown</span>
  ) : (
    <code className="masked-data" data-testid="masked-data">
      {text}
    </code>
  );
}

/** The problem of a search, with the character the server points at underlined in the query. */
export function SearchProblem({ error, query }: { readonly error: unknown; readonly query: string }) {
  const messages = fieldErrorsOf(error, 'query');
  const position = searchErrorPosition(messages, query);
  return (
    <div className="problem" role="alert">
      <ProblemAlert error={error} />
      {position !== null && (
        <pre className="query-error" aria-label={`The error is at position ${position} of the query`}>
          {splitAt(query, position).before}
          <mark className="error-at">{splitAt(query, position).at || ' '}</mark>
          {splitAt(query, position).after}
        </pre>
      )}
    </div>
  );
}

/**
 * A token's details with its data as the list showed it (masked). "Reveal" is one explicit request
 * (`POST /console/tokens/{id}/reveal`): through the session's own application it is checked
 * against the member's right to grant reveal, and audited as the member's read; as a given
 * application it shows what that application's transform allows.
 */
function TokenDrawer({ token, onClose }: { readonly token: TokenView | null; readonly onClose: () => void }) {
  const queryClient = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const reveal = useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/console/tokens/{id}/reveal', { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(tokenApi.DELETE('/tokens/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      setConfirmDelete(false);
      close();
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const close = () => {
    reveal.reset();
    remove.reset();
    onClose();
  };
  const masked = token === null ? null : dataBlock(token.data);
  const revealed = reveal.data === undefined ? undefined : dataBlock(reveal.data.data);
  return (
    <Dialog title="Token" open={token !== null} onClose={close} className="drawer">
      {token !== null && (
        <div className="dialog-body">
          <dl className="facts">
            <dt>Id</dt>
            <dd>
              <code>{token.id}</code>
            </dd>
            <dt>Type</dt>
            <dd>{token.type}</dd>
            <dt>Containers</dt>
            <dd>{token.containers.join(', ')}</dd>
            <dt>Fingerprint</dt>
            <dd>
              <code>{token.fingerprint ?? '—'}</code>
            </dd>
            <dt>Metadata</dt>
            <dd>
              <code>{JSON.stringify(token.metadata ?? {})}</code>
            </dd>
            <dt>Created</dt>
            <dd>{token.created_at ?? '—'}</dd>
            <dt>{revealed === undefined ? 'Data (masked)' : 'Data (revealed)'}</dt>
            <dd>
              {revealed === undefined ? (
                masked === null ? (
                  <span className="hint" data-testid="masked-data">
                    Not shown to you masked (no mask, or your access redacts it).
                  </span>
                ) : (
                  <pre className="masked-data" data-testid="masked-data">
                    {masked}
                  </pre>
                )
              ) : (
                <pre className="revealed" data-testid="revealed-data">
                  {revealed ?? '(not shown to you)'}
                </pre>
              )}
            </dd>
          </dl>
          <ProblemAlert error={reveal.error ?? remove.error} />
          <footer className="dialog-actions">
            {reveal.data === undefined ? (
              <button type="button" onClick={() => reveal.mutate(token.id)} disabled={reveal.isPending}>
                Reveal data
              </button>
            ) : (
              <button type="button" onClick={() => reveal.reset()}>
                Hide data
              </button>
            )}
            <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          </footer>
          <small className="hint">
            Revealing reads the token in clear once; the read is in the audit log.
          </small>
          <ConfirmDialog
            title="Delete this token?"
            open={confirmDelete}
            onCancel={() => setConfirmDelete(false)}
            onConfirm={() => remove.mutate(token.id)}
            confirmLabel="Delete token"
            busy={remove.isPending}
          >
            <p>
              The token <code>{token.id}</code> and its data are deleted for good. Anything still holding this
              token can no longer use it.
            </p>
          </ConfirmDialog>
        </div>
      )}
    </Dialog>
  );
}

/**
 * Data as typed: a JSON object, array or quoted string when it looks like one (objects for card
 * and bank), else the text itself, so digits stay a string of digits.
 */
function parseData(text: string): unknown {
  if (!/^\s*[[{"]/.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function CreateToken({ open, onClose }: { readonly open: boolean; readonly onClose: () => void }) {
  const queryClient = useQueryClient();
  const [type, setType] = useState('token');
  const [data, setData] = useState('');
  const [metadata, setMetadata] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: { type: string; data: unknown; metadata?: Record<string, string> }) =>
      unwrap(tokenApi.POST('/tokens', { body })),
    onSuccess: async () => {
      setData('');
      setMetadata('');
      onClose();
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLocalError(null);
    let meta: Record<string, string> | undefined;
    if (metadata.trim() !== '') {
      const pairs = metadata
        .split(/\n|,/)
        .map((line) => line.trim())
        .filter(Boolean);
      meta = {};
      for (const pair of pairs) {
        const at = pair.indexOf('=');
        if (at <= 0) {
          setLocalError(`Metadata "${pair}" is not key=value.`);
          return;
        }
        meta[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
      }
    }
    create.mutate({ type, data: parseData(data), ...(meta === undefined ? {} : { metadata: meta }) });
  };
  const hint = type === 'card_number' ? (luhnHint(data) ?? undefined) : undefined;
  return (
    <Dialog title="Create a token" open={open} onClose={onClose}>
      <form noValidate className="dialog-body" onSubmit={submit}>
        <ProblemAlert error={create.error} />
        <Field label="Type" name="type" error={create.error}>
          {(p) => (
            <>
              <input
                {...p}
                list="token-types"
                value={type}
                onChange={(e) => setType(e.target.value)}
                required
              />
              <datalist id="token-types">
                {TYPE_SUGGESTIONS.map((t) => (
                  <option key={t} value={t} />
                ))}
              </datalist>
            </>
          )}
        </Field>
        <Field
          label="Data"
          name="data"
          error={create.error}
          {...(hint === undefined ? { hint: 'Text, or JSON (an object for card and bank).' } : { hint })}
        >
          {(p) => (
            <textarea {...p} rows={4} value={data} onChange={(e) => setData(e.target.value)} required />
          )}
        </Field>
        <Field
          label="Metadata"
          name="metadata"
          error={create.error}
          hint="key=value, one per line (optional)."
        >
          {(p) => <textarea {...p} rows={2} value={metadata} onChange={(e) => setMetadata(e.target.value)} />}
        </Field>
        {localError !== null && (
          <p className="problem" role="alert">
            {localError}
          </p>
        )}
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

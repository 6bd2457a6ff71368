import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, fieldErrorsOf, unwrap, type Application } from '../api/client';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { RuleEditor, type RuleDraft } from '../components/rule-editor';
import { Empty, Loading, ProblemAlert } from '../components/states';
import { useSession } from '../session/session';

type AppType = Application['type'];
const APP_TYPES: readonly { value: AppType; label: string }[] = [
  { value: 'private', label: 'Private (a backend: tokenize, read, search)' },
  { value: 'public', label: 'Public (a browser or app: tokenize only)' },
  { value: 'management', label: 'Management (administers the tenant)' },
];

export function ApplicationsPage() {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [shownKey, setShownKey] = useState<{ name: string; key: string } | null>(null);
  const [pending, setPending] = useState<{ app: Application; action: 'regenerate' | 'delete' } | null>(null);

  const list = useQuery({
    queryKey: ['applications'],
    queryFn: () => unwrap(api.GET('/applications', { params: { query: { page: 1, size: 100 } } })),
  });
  const act = useMutation({
    mutationFn: async ({ app, action }: { app: Application; action: 'regenerate' | 'delete' }) => {
      if (action === 'delete') {
        await unwrap(api.DELETE('/applications/{id}', { params: { path: { id: app.id } } }));
        return null;
      }
      return unwrap(api.POST('/applications/{id}/regenerate', { params: { path: { id: app.id } } }));
    },
    onSuccess: async (result) => {
      setPending(null);
      if (result !== null) setShownKey({ name: result.name, key: result.key });
      await queryClient.invalidateQueries({ queryKey: ['applications'] });
    },
  });

  return (
    <section aria-labelledby="apps-title">
      <div className="page-header">
        <h1 id="apps-title">Applications</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create application
        </button>
      </div>
      {list.isPending && <Loading what="applications" />}
      <ProblemAlert error={list.error} withFields />
      {list.data !== undefined &&
        (list.data.data.length === 0 ? (
          <Empty>No applications yet.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Permissions</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((app) => (
                <tr key={app.id}>
                  <td>{app.name}</td>
                  <td>{app.type}</td>
                  <td className="permissions">{app.permissions.join(', ')}</td>
                  <td>{new Date(app.created_at).toLocaleString()}</td>
                  <td className="actions">
                    <button type="button" onClick={() => setPending({ app, action: 'regenerate' })}>
                      Regenerate key
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setPending({ app, action: 'delete' })}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <CreateApplication
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(name, key) => {
          setCreating(false);
          setShownKey({ name, key });
        }}
      />
      <KeyOnce shown={shownKey} onClose={() => setShownKey(null)} />
      <ConfirmDialog
        title={pending?.action === 'delete' ? 'Delete this application?' : 'Regenerate the key?'}
        open={pending !== null}
        onCancel={() => {
          act.reset();
          setPending(null);
        }}
        onConfirm={() => pending !== null && act.mutate(pending)}
        confirmLabel={pending?.action === 'delete' ? 'Delete application' : 'Regenerate key'}
        busy={act.isPending}
      >
        <p>
          {pending?.action === 'delete'
            ? `"${pending.app.name}" and its key stop working at once.`
            : `The current key of "${pending?.app.name ?? ''}" stops working at once; the new one is shown once.`}
        </p>
        <ProblemAlert error={act.error} />
      </ConfirmDialog>
    </section>
  );
}

/** The key is in this dialog's memory only; closing it forgets the key for good. */
function KeyOnce({
  shown,
  onClose,
}: {
  readonly shown: { name: string; key: string } | null;
  readonly onClose: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const { chooseTokenApp } = useSession();
  const navigate = useNavigate();
  return (
    <Dialog title="The application's key" open={shown !== null} onClose={onClose}>
      {shown !== null && (
        <div className="dialog-body">
          <p className="warning" role="note">
            Copy the key of <strong>{shown.name}</strong> now. It is shown only this once: the vault keeps
            only a hash of it. If it is lost, regenerate it.
          </p>
          <label htmlFor="shown-key">API key</label>
          <input id="shown-key" className="key" readOnly value={shown.key} data-testid="api-key" />
          <footer className="dialog-actions">
            <button
              type="button"
              onClick={() =>
                void navigator.clipboard.writeText(shown.key).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy key'}
            </button>
            <button
              type="button"
              onClick={() => {
                chooseTokenApp({ name: shown.name, key: shown.key });
                onClose();
                void navigate('/tokens');
              }}
            >
              Use on the Tokens screen
            </button>
            <button type="button" className="primary" onClick={onClose}>
              I have stored the key
            </button>
          </footer>
        </div>
      )}
    </Dialog>
  );
}

function CreateApplication({
  open,
  onClose,
  onCreated,
}: {
  readonly open: boolean;
  readonly onClose: () => void;
  readonly onCreated: (name: string, key: string) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<AppType>('private');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [rules, setRules] = useState<RuleDraft[]>([]);
  const permissions = useQuery({
    queryKey: ['permissions', type],
    queryFn: () => unwrap(api.GET('/permissions', { params: { query: { application_type: type } } })),
    enabled: open,
  });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/applications', {
          body: { name, type, permissions: [...chosen], ...(rules.length === 0 ? {} : { rules }) },
        }),
      ),
    onSuccess: async (app) => {
      setName('');
      setChosen(new Set());
      setRules([]);
      onCreated(app.name, app.key);
      await queryClient.invalidateQueries({ queryKey: ['applications'] });
    },
  });
  const toggle = (permission: string) => {
    const next = new Set(chosen);
    if (next.has(permission)) next.delete(permission);
    else next.add(permission);
    setChosen(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Dialog title="Create an application" open={open} onClose={onClose}>
      <form noValidate className="dialog-body" onSubmit={submit}>
        <ProblemAlert error={create.error} />
        <Field label="Name" name="name" error={create.error}>
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} required />}
        </Field>
        <Field label="Type" name="type" error={create.error}>
          {(p) => (
            <select
              {...p}
              value={type}
              onChange={(e) => {
                setType(e.target.value as AppType);
                setChosen(new Set());
                setRules([]);
              }}
            >
              {APP_TYPES.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset className="permission-picker">
          <legend>Permissions a {type} application may hold</legend>
          {permissions.isPending && <Loading what="permissions" />}
          <ProblemAlert error={permissions.error} />
          {permissions.data?.map((p) => (
            <label key={p.type} className="check">
              <input type="checkbox" checked={chosen.has(p.type)} onChange={() => toggle(p.type)} />
              <code>{p.type}</code> <span>{p.description}</span>
            </label>
          ))}
          <FieldMessages error={create.error} name="permissions" />
        </fieldset>
        {type !== 'management' && (
          <RuleEditor
            rules={rules}
            onChange={setRules}
            tokenPermissions={(permissions.data ?? []).filter((p) => p.type.startsWith('token:'))}
            error={create.error}
          />
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

function FieldMessages({ error, name }: { readonly error: unknown; readonly name: string }) {
  const messages = fieldErrorsOf(error, name);
  if (messages.length === 0) return null;
  return (
    <ul className="field-errors">
      {messages.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}

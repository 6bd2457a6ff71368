import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, fieldErrorsOf, unwrap, type Tenant } from '../api/client';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { Loading, ProblemAlert } from '../components/states';
import { useSession } from '../session/session';

/** Settings are strings (booleans as "true"/"false"); the server checks names and values. */
type SettingRow = { key: string; value: string };

export function SettingsPage() {
  const tenant = useQuery({ queryKey: ['tenant-self'], queryFn: () => unwrap(api.GET('/tenants/self')) });
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Tenant settings</h1>
      {tenant.isPending && <Loading what="the tenant" />}
      <ProblemAlert error={tenant.error} withFields />
      {tenant.data !== undefined && (
        <>
          <SettingsForm tenant={tenant.data} />
          <DeleteTenant tenant={tenant.data} />
        </>
      )}
    </section>
  );
}

function SettingsForm({ tenant }: { readonly tenant: Tenant }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(tenant.name);
  const [rows, setRows] = useState<SettingRow[]>([]);
  useEffect(() => {
    setName(tenant.name);
    setRows(Object.entries(tenant.settings).map(([key, value]) => ({ key, value })));
  }, [tenant]);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/tenants/self', {
          body: {
            name,
            settings: Object.fromEntries(
              rows.filter((r) => r.key.trim() !== '').map((r) => [r.key.trim(), r.value]),
            ),
          },
        }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['tenant-self'] });
      await queryClient.invalidateQueries({ queryKey: ['tenants'] });
    },
  });
  const setRow = (index: number, patch: Partial<SettingRow>) =>
    setRows(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="general-title">
      <h2 id="general-title">General</h2>
      <ProblemAlert error={save.error} />
      {save.isSuccess && (
        <p className="notice" role="status">
          Saved.
        </p>
      )}
      <Field label="Name" name="name" error={save.error}>
        {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} required />}
      </Field>
      <fieldset>
        <legend>Settings</legend>
        {rows.length === 0 && <p className="hint">No settings: the defaults apply.</p>}
        {rows.map((row, i) => {
          const messages = [
            ...fieldErrorsOf(save.error, `settings.${row.key}`),
            ...fieldErrorsOf(save.error, row.key),
          ];
          return (
            <div className="setting-row" key={i}>
              <label>
                <span>Setting</span>
                <input value={row.key} onChange={(e) => setRow(i, { key: e.target.value })} />
              </label>
              <label>
                <span>Value</span>
                <input value={row.value} onChange={(e) => setRow(i, { value: e.target.value })} />
              </label>
              <button type="button" className="ghost" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                Remove
              </button>
              {messages.length > 0 && (
                <ul className="field-errors">
                  {messages.map((m) => (
                    <li key={m}>{m}</li>
                  ))}
                </ul>
              )}
            </div>
          );
        })}
        <button
          type="button"
          onClick={() => setRows([...rows, { key: 'deduplicate_tokens', value: 'true' }])}
        >
          Add a setting
        </button>
      </fieldset>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save
      </button>
    </form>
  );
}

/** Deleting a tenant takes its name typed out: it deletes every token, key and entry of it. */
function DeleteTenant({ tenant }: { readonly tenant: Tenant }) {
  const { signOut } = useSession();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/tenants/self')),
    onSuccess: () => signOut('The tenant was deleted.'),
  });
  return (
    <div className="card danger-zone">
      <h2>Delete the tenant</h2>
      <p>Every token, application, member and audit entry of this tenant is deleted for good.</p>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        Delete tenant…
      </button>
      <Dialog title="Delete the tenant?" open={open} onClose={() => setOpen(false)}>
        <div className="dialog-body">
          <Field label={`Type the tenant's name (${tenant.name}) to confirm`} name="confirm" error={null}>
            {(p) => <input {...p} value={typed} onChange={(e) => setTyped(e.target.value)} />}
          </Field>
          <ProblemAlert error={remove.error} />
          <footer className="dialog-actions">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="danger"
              disabled={typed !== tenant.name || remove.isPending}
              onClick={() => remove.mutate()}
            >
              Delete tenant
            </button>
          </footer>
        </div>
      </Dialog>
    </div>
  );
}

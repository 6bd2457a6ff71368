import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Tenant } from '../api/client';
import { Id } from '../components/copy';
import { Dialog } from '../components/dialog';
import { Field } from '../components/field';
import { QueryView } from '../components/resource-table';
import { ProblemAlert } from '../components/states';
import { useSession } from '../session/session';
import { SettingsForm } from '../settings/settings-form';

export function SettingsPage() {
  const tenant = useQuery({ queryKey: ['tenant-self'], queryFn: () => unwrap(api.GET('/tenants/self')) });
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Tenant settings</h1>
      <QueryView query={tenant} what="the tenant">
        {(t) => (
          <>
            <p className="tenant-id">
              Tenant id <Id value={t.id} of={t.name} full />
            </p>
            <SettingsForm key={t.id} tenant={t} />
            <DeleteTenant tenant={t} />
          </>
        )}
      </QueryView>
    </section>
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

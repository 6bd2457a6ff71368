import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { rememberedTenant, useSession } from '../session/session';
import { CopyButton } from './copy';
import { Dialog } from './dialog';
import { Field } from './field';
import { Loading, ProblemAlert } from './states';
import { useToast } from './toast';

/** The tenants of the signed-in user, the chosen one's id to copy, and a new tenant. */
export function TenantSwitcher() {
  const { tenantId, selectTenant } = useSession();
  const tenants = useQuery({ queryKey: ['tenants'], queryFn: () => unwrap(api.GET('/tenants')) });
  // After a reload: the tenant this tab worked in, while the user still belongs to it; else the first.
  const remembered = rememberedTenant();
  const start = tenants.data?.find((t) => t.id === remembered)?.id ?? tenants.data?.[0]?.id;
  useEffect(() => {
    if (tenantId === null && start !== undefined) selectTenant(start);
  }, [tenantId, start, selectTenant]);
  if (tenants.isPending) return <Loading what="tenants" />;
  if (tenants.isError) return <ProblemAlert error={tenants.error} />;
  return (
    <div className="tenant-switcher">
      {tenants.data.length === 0 ? (
        <span>You are not a member of any tenant.</span>
      ) : (
        <>
          <label htmlFor="tenant-select">Tenant</label>
          <select id="tenant-select" value={tenantId ?? ''} onChange={(e) => selectTenant(e.target.value)}>
            {tenants.data.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          {tenantId !== null && <CopyButton value={tenantId} label="Copy the id of this tenant" />}
        </>
      )}
      <NewTenant />
    </div>
  );
}

/** A user creates a tenant and becomes its owner; the console switches to it. */
function NewTenant() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const { selectTenant } = useSession();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/tenants', { body: { name } })),
    onSuccess: async (tenant) => {
      setOpen(false);
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['tenants'] });
      selectTenant(tenant.id);
      toast(`Tenant "${tenant.name}" created; you are its owner.`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <>
      <button type="button" className="ghost" onClick={() => setOpen(true)}>
        New tenant
      </button>
      <Dialog title="Create a tenant" open={open} onClose={() => setOpen(false)}>
        <form noValidate className="dialog-body" onSubmit={submit}>
          <p>You become the owner of the new tenant.</p>
          <ProblemAlert error={create.error} />
          <Field label="Tenant name" name="name" error={create.error}>
            {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <footer className="dialog-actions">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={create.isPending}>
              Create tenant
            </button>
          </footer>
        </form>
      </Dialog>
    </>
  );
}

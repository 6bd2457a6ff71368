import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { createBrowserRouter, NavLink, Outlet, RouterProvider } from 'react-router';
import { api, unwrap } from './api/client';
import { Dialog } from './components/dialog';
import { Field } from './components/field';
import { Loading, ProblemAlert } from './components/states';
import { ApplicationsPage } from './pages/applications';
import { AuditPage } from './pages/audit';
import { MembersPage } from './pages/members';
import { OverviewPage } from './pages/overview';
import { ProxiesPage } from './pages/proxies';
import { ReactorsPage } from './pages/reactors';
import { SettingsPage } from './pages/settings';
import { SignInPage } from './pages/sign-in';
import { TokensPage } from './pages/tokens';
import { rememberedTenant, useSession } from './session/session';

const SCREENS = [
  { path: '/', label: 'Overview', element: <OverviewPage /> },
  { path: '/tokens', label: 'Tokens', element: <TokensPage /> },
  { path: '/applications', label: 'Applications', element: <ApplicationsPage /> },
  { path: '/reactors', label: 'Reactors', element: <ReactorsPage /> },
  { path: '/proxies', label: 'Proxies', element: <ProxiesPage /> },
  { path: '/members', label: 'Members', element: <MembersPage /> },
  { path: '/audit', label: 'Audit log', element: <AuditPage /> },
  { path: '/settings', label: 'Settings', element: <SettingsPage /> },
] as const;

const router = createBrowserRouter(
  [
    {
      element: <Shell />,
      children: [
        ...SCREENS.map(({ path, element }) => ({ path, element })),
        { path: '*', element: <p className="state">There is no such screen.</p> },
      ],
    },
  ],
  { basename: '/console' },
);

export function App({ linkSecret }: { readonly linkSecret: string | null }) {
  const { session, restoring } = useSession();
  if (restoring) return <Loading what="your session" />;
  if (session === null) return <SignInPage linkSecret={linkSecret} />;
  return <RouterProvider router={router} />;
}

function TenantSwitcher() {
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
        </>
      )}
      <NewTenant />
    </div>
  );
}

/** A user creates a tenant and becomes its owner; the console switches to it. */
function NewTenant() {
  const queryClient = useQueryClient();
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

function Shell() {
  const { tenantId, signOut, session } = useSession();
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">svc vault</span>
        <TenantSwitcher />
        {session !== null && <span className="signed-in-as">{session.email}</span>}
        <button type="button" className="ghost" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav className="sidebar" aria-label="Screens">
        <ul>
          {SCREENS.map((s) => (
            <li key={s.path}>
              <NavLink to={s.path} end={s.path === '/'}>
                {s.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content">
        {tenantId === null ? <Loading what="your tenant" /> : <Outlet key={tenantId} />}
      </main>
    </div>
  );
}

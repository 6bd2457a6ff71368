import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { createBrowserRouter, NavLink, Outlet, RouterProvider } from 'react-router';
import { api, unwrap } from './api/client';
import { Loading, ProblemAlert } from './components/states';
import { ApplicationsPage } from './pages/applications';
import { AuditPage } from './pages/audit';
import { MembersPage } from './pages/members';
import { OverviewPage } from './pages/overview';
import { SettingsPage } from './pages/settings';
import { SignInPage } from './pages/sign-in';
import { TokensPage } from './pages/tokens';
import { useSession } from './session/session';

const SCREENS = [
  { path: '/', label: 'Overview', element: <OverviewPage /> },
  { path: '/tokens', label: 'Tokens', element: <TokensPage /> },
  { path: '/applications', label: 'Applications', element: <ApplicationsPage /> },
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
  const { session } = useSession();
  if (session === null) return <SignInPage linkSecret={linkSecret} />;
  return <RouterProvider router={router} />;
}

function TenantSwitcher() {
  const { tenantId, selectTenant } = useSession();
  const tenants = useQuery({ queryKey: ['tenants'], queryFn: () => unwrap(api.GET('/tenants')) });
  const first = tenants.data?.[0]?.id;
  useEffect(() => {
    if (tenantId === null && first !== undefined) selectTenant(first);
  }, [tenantId, first, selectTenant]);
  if (tenants.isPending) return <Loading what="tenants" />;
  if (tenants.isError) return <ProblemAlert error={tenants.error} />;
  if (tenants.data.length === 0) return <span className="state">You are not a member of any tenant.</span>;
  return (
    <label className="tenant-switcher">
      <span>Tenant</span>
      <select value={tenantId ?? ''} onChange={(e) => selectTenant(e.target.value)}>
        {tenants.data.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Shell() {
  const { tenantId, signOut } = useSession();
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">svc vault</span>
        <TenantSwitcher />
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

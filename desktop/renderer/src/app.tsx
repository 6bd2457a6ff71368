import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter, NavLink, Outlet, RouterProvider } from 'react-router';
import { Loading } from './components/states';
import { TenantSwitcher } from './components/tenant-switcher';
import { SignInPage } from './pages/sign-in';
import { useSession } from './session/session';

/** A screen's module, fetched the first time it is opened: the entry script holds only the shell. */
function screen<M>(load: () => Promise<M>, pick: (module: M) => ComponentType) {
  const Screen = lazy(() => load().then((module) => ({ default: pick(module) })));
  return <Screen />;
}

const SCREENS = [
  {
    path: '/',
    label: 'Overview',
    element: screen(
      () => import('./pages/overview'),
      (m) => m.OverviewPage,
    ),
  },
  {
    path: '/tokens',
    label: 'Tokens',
    element: screen(
      () => import('./pages/tokens'),
      (m) => m.TokensPage,
    ),
  },
  {
    path: '/tools',
    label: 'Tokenize & import',
    element: screen(
      () => import('./pages/token-tools'),
      (m) => m.TokenToolsPage,
    ),
  },
  {
    path: '/applications',
    label: 'Applications',
    element: screen(
      () => import('./pages/applications'),
      (m) => m.ApplicationsPage,
    ),
  },
  {
    path: '/reactors',
    label: 'Reactors',
    element: screen(
      () => import('./pages/reactors'),
      (m) => m.ReactorsPage,
    ),
  },
  {
    path: '/proxies',
    label: 'Proxies',
    element: screen(
      () => import('./pages/proxies'),
      (m) => m.ProxiesPage,
    ),
  },
  {
    path: '/members',
    label: 'Members',
    element: screen(
      () => import('./pages/members'),
      (m) => m.MembersPage,
    ),
  },
  {
    path: '/audit',
    label: 'Audit log',
    element: screen(
      () => import('./pages/audit'),
      (m) => m.AuditPage,
    ),
  },
  {
    path: '/settings',
    label: 'Settings',
    element: screen(
      () => import('./pages/settings'),
      (m) => m.SettingsPage,
    ),
  },
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
        {tenantId === null ? (
          <Loading what="your tenant" />
        ) : (
          <Suspense fallback={<Loading what="the screen" />}>
            <Outlet key={tenantId} />
          </Suspense>
        )}
      </main>
    </div>
  );
}

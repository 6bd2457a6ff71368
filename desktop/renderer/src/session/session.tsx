import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, setCredentials, setTokenKey, unwrap, whenUnauthorized, type TokenAccess } from '../api/client';
import { rememberedTenant, rememberTenant } from './tenant-memory';

/** The signed-in session: who, and until when. Its token is in an HttpOnly cookie the page never sees. */
export interface Session {
  readonly email: string;
  readonly expiresAt: string;
}

/** What a sign-in answers: the session's expiry and its CSRF value (the cookie carries the rest). */
export interface SignedIn {
  readonly expires_at: string;
  readonly csrf_token: string;
}

interface SessionState {
  readonly session: Session | null;
  /** True while a reloaded page asks the server whether its cookie still signs someone in. */
  readonly restoring: boolean;
  readonly tenantId: string | null;
  readonly endedReason: string | null;
  signIn(signedIn: SignedIn): Promise<void>;
  signOut(reason?: string): Promise<void>;
  selectTenant(id: string): void;
  /**
   * What the Tokens screen acts through in the current tenant (server-side, it lasts for the
   * session): the session's own application or the application of a given key; null for nothing yet.
   */
  readonly tokenApp: TokenApp | null;
  /** Acts as the application of `key` (kept server-side for the session), or forgets the choice (null). */
  chooseTokenApp(app: { readonly name: string; readonly key: string } | null): Promise<void>;
}

export interface TokenApp {
  readonly name: string;
  readonly mode: 'session-application' | 'application';
}

const SessionContext = createContext<SessionState | null>(null);

export const TOKEN_ACCESS_QUERY = 'token-access';

/**
 * The signed-in session. The server keeps it in an HttpOnly, SameSite=Strict cookie, so a reload
 * or a new tab stays signed in; the page holds only the session's CSRF value, in memory, and asks
 * `GET /console/session` for it again after a reload. Nothing secret goes to web storage (only
 * the id of the chosen tenant, which is no secret, in this tab's sessionStorage).
 */
export function SessionProvider({
  children,
  restoreFromCookie = true,
}: {
  readonly children: ReactNode;
  /** False when a one-time link is being exchanged: it signs in anew, whatever the cookie holds. */
  readonly restoreFromCookie?: boolean;
}) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(restoreFromCookie);
  const [tenantId, setTenantId] = useState<string | null>(null);
  const [endedReason, setEndedReason] = useState<string | null>(null);

  const forget = useCallback(
    (reason: string | null) => {
      setCredentials({ csrf: null, tenantId: null });
      setTokenKey(null);
      setSession(null);
      setTenantId(null);
      rememberTenant(null);
      setEndedReason(reason);
      queryClient.clear();
    },
    [queryClient],
  );

  /** Asks the server who the cookie signs in; null when nobody (no cookie, expired, signed out). */
  const restore = useCallback(async (): Promise<boolean> => {
    const { data, response } = await api.GET('/console/session');
    if (!response.ok || data === undefined || data.csrf_token === null) return false;
    setCredentials({ csrf: data.csrf_token });
    setSession({ email: data.email, expiresAt: data.expires_at });
    return true;
  }, []);

  useEffect(() => {
    if (!restoreFromCookie) return;
    let live = true;
    void restore()
      .catch(() => false)
      .finally(() => {
        if (live) setRestoring(false);
      });
    return () => {
      live = false;
    };
  }, [restore, restoreFromCookie]);

  const signOut = useCallback(
    async (reason?: string) => {
      await api.POST('/auth/logout').catch(() => undefined);
      forget(reason ?? null);
    },
    [forget],
  );

  useEffect(() => {
    whenUnauthorized(() => forget('Your session ended. Sign in again.'));
  }, [forget]);

  // A session ends on its own at its expiry time.
  useEffect(() => {
    if (session === null) return;
    const ms = Date.parse(session.expiresAt) - Date.now();
    const timer = setTimeout(() => forget('Your session expired. Sign in again.'), Math.max(0, ms));
    return () => clearTimeout(timer);
  }, [session, forget]);

  const tokenAccess = useQuery({
    queryKey: [TOKEN_ACCESS_QUERY, tenantId],
    queryFn: () => unwrap(api.GET('/console/token-access')),
    enabled: session !== null && tenantId !== null,
  });
  const tokenApp = useMemo<TokenApp | null>(() => tokenAppOf(tokenAccess.data), [tokenAccess.data]);

  const choose = useMutation({
    mutationFn: async (app: { readonly name: string; readonly key: string } | null) => {
      const next =
        app === null
          ? await unwrap(api.DELETE('/console/token-access'))
          : await unwrap(api.PUT('/console/token-access', { body: { mode: 'application', key: app.key } }));
      // The proxy test request sends the key itself (the proxy never takes the session): it is
      // kept in this page's memory too, until a reload.
      setTokenKey(app?.key ?? null);
      return next;
    },
    onSuccess: (next) => {
      queryClient.setQueryData([TOKEN_ACCESS_QUERY, tenantId], next);
      void queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });

  const value = useMemo<SessionState>(
    () => ({
      session,
      restoring,
      tenantId,
      endedReason,
      async signIn(signedIn) {
        setCredentials({ csrf: signedIn.csrf_token, tenantId: null });
        setEndedReason(null);
        if (!(await restore())) forget('The sign-in did not last. Sign in again.');
      },
      signOut,
      tokenApp,
      chooseTokenApp: async (app) => {
        await choose.mutateAsync(app);
      },
      selectTenant(id) {
        setCredentials({ tenantId: id });
        rememberTenant(id);
        // An application's key belongs to its tenant.
        setTokenKey(null);
        // Everything cached belongs to the previous tenant.
        queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'tenants' });
        setTenantId(id);
      },
    }),
    [session, restoring, tenantId, endedReason, signOut, queryClient, tokenApp, choose, restore, forget],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

function tokenAppOf(access: TokenAccess | undefined): TokenApp | null {
  if (access === undefined || access.mode === 'none' || access.application === null) return null;
  return { name: access.application.name, mode: access.mode };
}

/** The tenant this tab chose before a reload, if any (the switcher checks it is still one of the user's). */
export { rememberedTenant };

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (state === null) throw new Error('useSession outside SessionProvider');
  return state;
}

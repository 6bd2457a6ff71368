import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, setCredentials, setTokenKey, whenUnauthorized } from '../api/client';

export interface Session {
  readonly token: string;
  readonly expiresAt: string;
}

interface SessionState {
  readonly session: Session | null;
  readonly tenantId: string | null;
  readonly endedReason: string | null;
  signIn(session: Session): void;
  signOut(reason?: string): Promise<void>;
  selectTenant(id: string): void;
  /** The application the Tokens screen acts as (its key in memory only), or null. */
  readonly tokenApp: TokenApp | null;
  chooseTokenApp(app: TokenApp | null): void;
}

export interface TokenApp {
  readonly name: string;
  readonly key: string;
}

const SessionContext = createContext<SessionState | null>(null);

/** The signed-in session and the chosen tenant, in this page's memory only. */
export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | null>(null);
  const [tenantId, setTenantId] = useState<string | null>(null);
  const [endedReason, setEndedReason] = useState<string | null>(null);
  const [tokenApp, setTokenApp] = useState<TokenApp | null>(null);
  const chooseTokenApp = useCallback((app: TokenApp | null) => {
    setTokenKey(app?.key ?? null);
    setTokenApp(app);
  }, []);

  const forget = useCallback(
    (reason: string | null) => {
      setCredentials({ token: null, tenantId: null });
      chooseTokenApp(null);
      setSession(null);
      setTenantId(null);
      setEndedReason(reason);
      queryClient.clear();
    },
    [queryClient, chooseTokenApp],
  );

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

  const value = useMemo<SessionState>(
    () => ({
      session,
      tenantId,
      endedReason,
      signIn(next) {
        setCredentials({ token: next.token, tenantId: null });
        setEndedReason(null);
        setSession(next);
      },
      signOut,
      tokenApp,
      chooseTokenApp: chooseTokenApp,
      selectTenant(id) {
        setCredentials({ tenantId: id });
        // An application's key belongs to its tenant.
        chooseTokenApp(null);
        // Everything cached belongs to the previous tenant.
        queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'tenants' });
        setTenantId(id);
      },
    }),
    [session, tenantId, endedReason, signOut, queryClient, tokenApp, chooseTokenApp],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (state === null) throw new Error('useSession outside SessionProvider');
  return state;
}

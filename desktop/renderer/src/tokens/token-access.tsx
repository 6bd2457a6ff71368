import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import { Field } from '../components/field';
import { Loading, ProblemAlert } from '../components/states';
import { TOKEN_ACCESS_QUERY, useSession } from '../session/session';

/** How the token screens act, once settled: what they show in their header and offer to change. */
export interface TokenAccessState {
  readonly mode: 'session-application' | 'application';
  readonly appName: string;
  readonly mayUseSessionApplication: boolean;
  readonly onChooseKey: () => void;
}

/**
 * What the token screens (Tokens, Tokenize & import) act through: the session's own application,
 * made on the first visit when the member may create applications, or the application whose key
 * the member gives. Renders `children` once one is settled, the choice (titled `title`) before.
 */
export function TokenAccessGate({
  title,
  children,
}: {
  readonly title: string;
  readonly children: (access: TokenAccessState) => ReactNode;
}) {
  const { tenantId } = useSession();
  const access = useQuery({
    queryKey: [TOKEN_ACCESS_QUERY, tenantId],
    queryFn: () => unwrap(api.GET('/console/token-access')),
  });
  // "Act as an application instead": the member picked giving a key over the session's own application.
  const [choosingKey, setChoosingKey] = useState(false);
  if (access.isPending) return <Loading what="token access" />;
  if (access.isError) return <ProblemAlert error={access.error} />;
  const { mode, application, session_application_allowed: allowed } = access.data;
  if (choosingKey || (mode === 'none' && !allowed)) {
    return (
      <ChooseApplication
        title={title}
        onCancel={allowed && choosingKey ? () => setChoosingKey(false) : undefined}
        onChosen={() => setChoosingKey(false)}
      />
    );
  }
  if (mode === 'none' || application === null) return <OpenSessionApplication title={title} />;
  return (
    <>
      {children({
        mode,
        appName: application.name,
        mayUseSessionApplication: allowed,
        onChooseKey: () => setChoosingKey(true),
      })}
    </>
  );
}

/** Whom the token screens act as, and the way to change it: a key instead, or back to the session. */
export function TokenAccessBar({
  access,
  masked = false,
}: {
  readonly access: TokenAccessState;
  /** Say that lists show masked data (the Tokens screen). */
  readonly masked?: boolean;
}) {
  const { chooseTokenApp } = useSession();
  return access.mode === 'session-application' ? (
    <>
      <span>
        As <strong>your console session</strong>
        {masked ? ', masked' : ''}
      </span>
      <button type="button" onClick={access.onChooseKey}>
        Act as an application instead
      </button>
    </>
  ) : (
    <>
      <span>
        As application <strong>{access.appName}</strong>
      </span>
      <button type="button" onClick={() => void chooseTokenApp(null)}>
        {access.mayUseSessionApplication ? 'Stop acting as it' : 'Forget key'}
      </button>
    </>
  );
}

/**
 * A member who may create applications reads tokens through an application the console makes for
 * this session (masked, expiring with it, removed at sign-out): made here, on the first visit.
 */
function OpenSessionApplication({ title }: { readonly title: string }) {
  const queryClient = useQueryClient();
  const { tenantId } = useSession();
  const open = useMutation({
    mutationFn: () => unwrap(api.PUT('/console/token-access', { body: { mode: 'session-application' } })),
    onSuccess: (next) => queryClient.setQueryData([TOKEN_ACCESS_QUERY, tenantId], next),
  });
  const { mutate, isIdle } = open;
  useEffect(() => {
    if (isIdle) mutate();
  }, [isIdle, mutate]);
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">{title}</h1>
      {open.isError ? <ProblemAlert error={open.error} /> : <Loading what="your session's token access" />}
    </section>
  );
}

/**
 * Token permissions belong to applications, not to members: a member who may not create
 * applications (or who chooses to) acts as a private application whose key they give. The server
 * keeps that choice for the rest of the session (the keyed hash of the key, never the key).
 */
function ChooseApplication({
  title,
  onCancel,
  onChosen,
}: {
  readonly title: string;
  readonly onCancel: (() => void) | undefined;
  readonly onChosen: () => void;
}) {
  const { chooseTokenApp } = useSession();
  const [key, setKey] = useState('');
  const check = useMutation({
    mutationFn: () => chooseTokenApp({ name: 'the application of the given key', key: key.trim() }),
    onSuccess: onChosen,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    check.mutate();
  };
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">{title}</h1>
      <form noValidate className="card" onSubmit={submit}>
        <h2>Act as an application</h2>
        <p>
          Tokens are created, read and searched by applications, each within its permissions and access rules;
          a member&apos;s session administers the tenant but holds no token permissions. Give the key of a
          private application to browse its tokens as it would see them. The vault keeps this choice for the
          rest of your session (a reload keeps it); the key itself is never stored in this browser.
        </p>
        <ProblemAlert error={check.error} />
        <Field label="Application key" name="key" error={check.error}>
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="off"
              value={key}
              onChange={(e) => setKey(e.target.value)}
            />
          )}
        </Field>
        <div className="dialog-actions">
          {onCancel !== undefined && (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
          <button type="submit" className="primary" disabled={check.isPending || key.trim() === ''}>
            Use this key
          </button>
        </div>
      </form>
    </section>
  );
}

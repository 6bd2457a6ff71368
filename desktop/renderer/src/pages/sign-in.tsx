import { useMutation } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { Field } from '../components/field';
import { ProblemAlert } from '../components/states';
import { useSession } from '../session/session';

/** A link is exchanged once; StrictMode's second effect run must not spend it again. */
const exchanged = new Set<string>();

interface OwnerForm {
  email: string;
  first_name: string;
  last_name: string;
  password: string;
}

export function SignInPage({ linkSecret }: { readonly linkSecret: string | null }) {
  const { signIn, endedReason } = useSession();
  const [needsOwner, setNeedsOwner] = useState(false);

  const redeem = useMutation({
    mutationFn: (owner?: OwnerForm) =>
      unwrap(
        api.POST('/console/sessions', {
          body: {
            secret: linkSecret ?? '',
            ...(owner === undefined
              ? {}
              : {
                  owner: {
                    email: owner.email,
                    password: owner.password,
                    ...(owner.first_name === '' ? {} : { first_name: owner.first_name }),
                    ...(owner.last_name === '' ? {} : { last_name: owner.last_name }),
                  },
                }),
          },
        }),
      ),
    onSuccess: (s) => signIn(s),
    onError: (error) => {
      if (error instanceof ApiError && error.fieldErrors('owner').length > 0) setNeedsOwner(true);
    },
  });

  useEffect(() => {
    if (linkSecret === null || exchanged.has(linkSecret)) return;
    exchanged.add(linkSecret);
    redeem.mutate(undefined);
  }, [linkSecret, redeem]);

  return (
    <main className="sign-in">
      <h1>svc vault console</h1>
      {endedReason !== null && <p className="notice">{endedReason}</p>}
      {linkSecret !== null && needsOwner ? (
        <OwnerSetup error={redeem.error} busy={redeem.isPending} onSubmit={(owner) => redeem.mutate(owner)} />
      ) : (
        <>
          {linkSecret !== null && redeem.isPending && <p role="status">Signing in with the one-time link…</p>}
          {linkSecret !== null && redeem.isError && !needsOwner && (
            <ProblemAlert error={redeem.error} title="The sign-in link did not work" />
          )}
          <PasswordSignIn />
        </>
      )}
    </main>
  );
}

function OwnerSetup({
  error,
  busy,
  onSubmit,
}: {
  readonly error: unknown;
  readonly busy: boolean;
  readonly onSubmit: (owner: OwnerForm) => void;
}) {
  const [form, setForm] = useState<OwnerForm>({ email: '', first_name: '', last_name: '', password: '' });
  const set = (key: keyof OwnerForm) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [key]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(form);
  };
  const ownerOnly = error instanceof ApiError && error.fieldErrors('owner').length > 0;
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="owner-title">
      <h2 id="owner-title">Set up the owner of this vault's tenant</h2>
      <p>
        You opened the one-time link of the process that unlocked the vault. The tenant's owner is not set up
        yet (it has no password): give its e-mail, name and password. The owner signs in later with them, and
        cannot be removed.
      </p>
      {!ownerOnly && <ProblemAlert error={error} />}
      <Field label="E-mail" name="email" error={error}>
        {(p) => (
          <input
            {...p}
            type="email"
            autoComplete="email"
            required
            value={form.email}
            onChange={set('email')}
          />
        )}
      </Field>
      <Field label="First name" name="first_name" error={error}>
        {(p) => (
          <input {...p} autoComplete="given-name" value={form.first_name} onChange={set('first_name')} />
        )}
      </Field>
      <Field label="Last name" name="last_name" error={error}>
        {(p) => (
          <input {...p} autoComplete="family-name" value={form.last_name} onChange={set('last_name')} />
        )}
      </Field>
      <Field label="Password" name="password" error={error} hint="At least 8 characters.">
        {(p) => (
          <input
            {...p}
            type="password"
            autoComplete="new-password"
            required
            value={form.password}
            onChange={set('password')}
          />
        )}
      </Field>
      <button type="submit" className="primary" disabled={busy}>
        Set up the owner and sign in
      </button>
    </form>
  );
}

function PasswordSignIn() {
  const { signIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => unwrap(api.POST('/console/sessions/login', { body: { email, password } })),
    onSuccess: (s) => signIn(s),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in</h2>
      <p>
        Members sign in with their e-mail and password. The operator uses the one-time link the server
        printed.
      </p>
      <ProblemAlert error={login.error} />
      <Field label="E-mail" name="email" error={login.error}>
        {(p) => (
          <input
            {...p}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        )}
      </Field>
      <Field label="Password" name="password" error={login.error}>
        {(p) => (
          <input
            {...p}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <button type="submit" className="primary" disabled={login.isPending}>
        Sign in
      </button>
    </form>
  );
}

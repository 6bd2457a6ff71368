import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { DEFAULT_SESSION_TTL_MS } from '../../core/identity/sessions.ts';
import { createOneTimeSignIn, type OneTimeSignIn } from '../../core/identity/one-time-sign-in.ts';
import { INTERACTIVE_KDF, PASSWORD_MAX } from '../../core/identity/passwords.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { KdfLimits } from '../../core/crypto/root-key.ts';
import { userSessionOf } from '../http/access.ts';
import type { ConsoleCookies } from '../http/console-cookie.ts';
import { PersonNameFields, Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

/** Where the console is served; sign-in links point here with the secret in the fragment. */
export const CONSOLE_PATH = '/console/';

const OneTimeBody = Type.Object(
  {
    secret: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'The secret of the one-time sign-in link (the part after `#` in its address).',
    }),
    owner: Type.Optional(
      Type.Object(
        {
          email: Type.String({ minLength: 1, maxLength: 320 }),
          password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
          ...PersonNameFields,
        },
        {
          additionalProperties: false,
          description:
            'The owner to set up, only while it is not (the first sign-in): the e-mail, name and ' +
            'password of the unclaimed owner (no password yet), or of a new owner when the tenant has none.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  },
  { description: 'Unknown fields are ignored.' },
);

const CsrfToken = Type.String({
  description:
    'The double-submit value of this session: send it as the SVC-CSRF header on every request made ' +
    'with the console cookie. Keep it in memory only; `GET /console/session` tells it again.',
});

const ConsoleSessionSchema = Type.Object({
  expires_at: Timestamp,
  csrf_token: CsrfToken,
});

const CurrentSessionSchema = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  expires_at: Timestamp,
  csrf_token: Type.Union([
    CsrfToken,
    Type.Null({ description: 'Null for a bearer token: only the cookie needs it.' }),
  ]),
});

const COOKIE_NOTE =
  'The session token is set in an HttpOnly, SameSite=Strict cookie of this host (`svc_console_<port>`, ' +
  '`__Host-` prefixed and Secure over TLS) that expires with the session; it is never in the body.';

const signIns = new WeakMap<VaultServer, OneTimeSignIn>();

/**
 * A new one-time sign-in link for the console of `app` (the process that started the server prints
 * it). The secret is in the fragment, which browsers never send to a server or put in a Referer.
 */
export function consoleSignInLink(app: VaultServer, baseUrl: string): string {
  const signIn = signIns.get(app);
  if (signIn === undefined) throw new Error('the console routes are not registered on this server');
  return `${baseUrl.replace(/\/$/, '')}${CONSOLE_PATH}#${signIn.issue()}`;
}

export interface ConsoleSignInOptions {
  readonly passwordKdf?: KdfLimits;
  readonly sessionTtlMs?: number;
}

/**
 * The console's sign-in: a one-time link or e-mail and password, each answered with the session in
 * the console cookie (never in the body) and its CSRF value; and `GET /console/session`, which
 * tells a reloaded page who is signed in and that value again.
 */
export function registerConsoleSessionRoutes(
  app: VaultServer,
  vault: VaultHandle,
  services: Services,
  cookies: ConsoleCookies,
  options: ConsoleSignInOptions = {},
): void {
  async function startSession(
    request: FastifyRequest,
    reply: FastifyReply,
    session: { token: string; expires_at: string },
  ): Promise<FastifyReply> {
    // A session this browser held until now is replaced by the new cookie: end it, so it does not
    // live on unseen (with its session applications) until its expiry.
    const replaced = cookies.read(request);
    if (replaced !== null && replaced !== session.token) await services.auth.signOut(replaced);
    cookies.set(reply, request, session.token, session.expires_at);
    return reply.header('cache-control', 'no-store').send({
      expires_at: session.expires_at,
      csrf_token: services.auth.csrfToken(session.token),
    });
  }

  const signIn = createOneTimeSignIn(vault, {
    kdf: options.passwordKdf ?? INTERACTIVE_KDF,
    sessionTtlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
  });
  signIns.set(app, signIn);

  app.post(
    '/console/sessions',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Sign in with a one-time link',
        description:
          'Exchanges the secret of a one-time sign-in link (printed by the process that started the ' +
          'server) for a session of the owner of the operator tenant (the embedded default, else the ' +
          'oldest tenant). A link works once and for five minutes; a used, unknown or expired one is ' +
          '401. While that owner is not set up (it has no password yet, as the embedded default owner ' +
          'made without a terminal, or the tenant has none), the answer is 400 with a field error on ' +
          '`owner` and the link stays usable: send it again with `owner` to claim the owner (its ' +
          'e-mail, name and password, audited) and sign in as it. ' +
          COOKIE_NOTE,
        tags: ['auth'],
        body: OneTimeBody,
        response: { 200: ConsoleSessionSchema },
      },
    },
    async (request, reply) => {
      const { secret, owner } = request.body;
      return startSession(request, reply, await signIn.redeem(secret, owner));
    },
  );

  app.post(
    '/console/sessions/login',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Sign in to the console',
        description:
          'E-mail and password, as `POST /auth/login` checks them (the same 401 for every failure, ' +
          '429 with Retry-After after repeated ones), for a console session. ' +
          COOKIE_NOTE,
        tags: ['auth'],
        body: LoginBody,
        response: { 200: ConsoleSessionSchema },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      return startSession(request, reply, await services.auth.signIn(email, password, request.ip));
    },
  );

  app.get(
    '/console/session',
    {
      config: { access: 'session', tellsCsrfToken: true },
      schema: {
        summary: 'The console session',
        description:
          'Who the session signs in and until when; for the console cookie also the SVC-CSRF value of ' +
          'that session (a reloaded page has none yet, so this one request does not need it; it ' +
          'changes nothing). Signing out is `POST /auth/logout`.',
        tags: ['auth'],
        response: { 200: CurrentSessionSchema },
      },
    },
    async (request, reply) => {
      const session = userSessionOf(request);
      const token = session.viaCookie ? cookies.read(request) : null;
      const user = await services.users.get(session.userId);
      if (user === null)
        throw new VaultError('UNAUTHENTICATED', 'The session token is not valid or has expired.');
      return reply.header('cache-control', 'no-store').send({
        user_id: session.userId,
        email: user.email,
        expires_at: session.expiresAt,
        csrf_token: token === null ? null : services.auth.csrfToken(token),
      });
    },
  );
}

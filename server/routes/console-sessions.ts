import { Type } from 'typebox';
import { DEFAULT_SESSION_TTL_MS } from '../../core/identity/sessions.ts';
import { createOneTimeSignIn, type OneTimeSignIn } from '../../core/identity/one-time-sign-in.ts';
import { INTERACTIVE_KDF, PASSWORD_MAX } from '../../core/identity/passwords.ts';
import type { KdfLimits, VaultHandle } from '../../core/vault/types.ts';
import { Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

/** Where the console is served; sign-in links point here with the secret in the fragment. */
export const CONSOLE_PATH = '/console/';

const NAME_MAX = 200;

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
          first_name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_MAX })),
          last_name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_MAX })),
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

const SessionSchema = Type.Object({
  token: Type.String({ description: 'Session token, as `POST /auth/login` returns it.' }),
  expires_at: Timestamp,
});

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

/** The exchange of a one-time link for a session. Public: the link's secret is the credential. */
export function registerConsoleSessionRoutes(
  app: VaultServer,
  vault: VaultHandle,
  options: ConsoleSignInOptions = {},
): void {
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
          'e-mail, name and password, audited) and sign in as it.',
        tags: ['auth'],
        body: OneTimeBody,
        response: { 200: SessionSchema },
      },
    },
    async (request, reply) => {
      const { secret, owner } = request.body;
      const session = await signIn.redeem(secret, owner);
      return reply.header('cache-control', 'no-store').send(session);
    },
  );
}

import { Type } from 'typebox';
import type { Services } from '../../core/services-contract.ts';
import { principalOf } from '../http/access.ts';
import type { VaultServer } from '../types.ts';
import { TokenSchema } from '../../core/tokens/index.ts';
import { byId, checkId, TokenIdParams } from './token-ids.ts';

const TokenAccessSchema = Type.Object({
  mode: Type.Union([Type.Literal('session-application'), Type.Literal('application'), Type.Literal('none')], {
    description:
      '`session-application`: the application the console made for this session (masked token access, ' +
      'expiring with the session); `application`: the application whose key the member gave; `none`: ' +
      'no token access yet.',
  }),
  application: Type.Union([
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      expires_at: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  session_application_allowed: Type.Boolean({
    description:
      'Whether this member may have the console make a session application here (they may create ' +
      'applications with that token access themselves).',
  }),
});

const TokenAccessChoice = Type.Union([
  Type.Object({ mode: Type.Literal('session-application') }),
  Type.Object({
    mode: Type.Literal('application'),
    key: Type.String({ minLength: 1, maxLength: 256, description: "The application's API key." }),
  }),
]);

const tags = ['console'];
const access = 'console' as const;

/**
 * The console's token access (core/identity/console-token-access.ts): which application the
 * Tokens screen of this console session acts through, and the explicit reveal of one token.
 * Cookie sessions only (`access: 'console'`), with the CSRF checks of every cookie request.
 */
export function registerConsoleTokenAccessRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/console/token-access',
    {
      config: { access },
      schema: {
        summary: "The console session's token access",
        description: 'What the Tokens screen of this console session acts through in the tenant.',
        tags,
        response: { 200: TokenAccessSchema },
      },
    },
    async (request) => services.consoleTokenAccess.status(principalOf(request)),
  );

  app.put(
    '/console/token-access',
    {
      config: { access },
      schema: {
        summary: "Choose the console session's token access",
        description:
          '`session-application`: the console makes an application for this session (audited as the ' +
          "member's), with masked token access and never more than the member could grant (403 " +
          'otherwise), expiring with the session and removed at sign-out. `application`: act as the ' +
          'application of `key` for the rest of the session (the server keeps the keyed hash of the key ' +
          'with the session, in memory; a restart forgets it); a key of another tenant, unknown, or ' +
          'without token permissions is a 400 on `key`.',
        tags,
        body: TokenAccessChoice,
        response: { 200: TokenAccessSchema },
      },
    },
    async (request) => {
      const member = principalOf(request);
      const choice = request.body;
      return choice.mode === 'application'
        ? services.consoleTokenAccess.useApplicationKey(member, choice.key)
        : services.consoleTokenAccess.useSessionApplication(member);
    },
  );

  app.delete(
    '/console/token-access',
    {
      config: { access },
      schema: {
        summary: "Forget the console session's token access",
        description: 'Removes the session application (audited) and forgets a given key.',
        tags,
        response: { 200: TokenAccessSchema },
      },
    },
    async (request) => services.consoleTokenAccess.forget(principalOf(request)),
  );

  app.post(
    '/console/tokens/:id/reveal',
    {
      config: { access },
      preValidation: checkId,
      schema: {
        summary: 'Reveal one token in the console',
        description:
          "One token with its data as this console session's member may see it in clear: through the " +
          'session application, when the member could grant reveal on it (403 otherwise), audited as ' +
          "the member's read; as a given application, exactly what its key shows. A token the session " +
          'cannot read is a 404, like a missing one.',
        tags,
        params: TokenIdParams,
        response: { 200: TokenSchema },
      },
    },
    async (request, reply) => {
      const token = await byId(services.consoleTokenAccess.reveal(principalOf(request), request.params.id));
      return reply.header('cache-control', 'no-store').send(token);
    },
  );
}

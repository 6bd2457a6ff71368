import { Type } from 'typebox';
import type { Services } from '../../core/services-contract.ts';
import { bearerToken, userSessionOf } from '../http/access.ts';
import type { ConsoleCookies } from '../http/console-cookie.ts';
import { Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { description: 'Unknown fields are ignored.' },
);

const SessionSchema = Type.Object({
  token: Type.String({
    description:
      'Session token: send it as `Authorization: Bearer <token>` (with SVC-TENANT-ID on tenant endpoints).',
  }),
  expires_at: Timestamp,
});

const tags = ['auth'];

export function registerAuthRoutes(app: VaultServer, services: Services, cookies: ConsoleCookies): void {
  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Sign in',
        description:
          'Exchanges e-mail and password for a session token. Every failure is the same 401; repeated ' +
          'failures are answered with 429 and a Retry-After header.',
        tags,
        body: LoginBody,
        response: { 200: SessionSchema },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const session = await services.auth.signIn(email, password, request.ip);
      return reply
        .header('cache-control', 'no-store')
        .send({ token: session.token, expires_at: session.expires_at });
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { access: 'session' },
      schema: {
        summary: 'Sign out',
        description:
          'Revokes the presented session (a bearer token, or the console cookie, which is then ' +
          'cleared) and removes what the console made for it (its session applications).',
        tags,
        response: { 204: Type.Null({ description: 'Signed out.' }) },
      },
    },
    async (request, reply) => {
      // The guard accepted a bearer token or the console cookie on this 'session' route.
      const viaCookie = userSessionOf(request).viaCookie;
      const token = viaCookie ? cookies.read(request) : bearerToken(request);
      if (token !== null) await services.auth.signOut(token);
      if (viaCookie) cookies.clear(reply, request);
      return reply.code(204).send(null);
    },
  );
}

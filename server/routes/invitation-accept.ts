import { Type } from 'typebox';
import type { Services } from '../../core/services-contract.ts';
import { ACCEPT_PATH } from '../../core/tenancy/accept-link.ts';
import { PersonNameFields } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';
import { ACCEPT_PAGE, ACCEPT_PAGE_HEADERS } from './accept-page.ts';
import { MemberSchema, memberBody } from './members.ts';

const AcceptBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The secret of the accept link (its `token` query parameter).',
    }),
    ...PersonNameFields,
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'A new user chooses their password here; somebody who already has an account gives theirs.',
      }),
    ),
  },
  { description: 'Unknown fields are ignored.' },
);

/**
 * Accepting an invitation. Public: the one-time secret of the e-mailed link is the credential
 * (it is only ever in the body, which is never logged; a link's query string is not logged either).
 */
export function registerInvitationAcceptRoutes(app: VaultServer, services: Services): void {
  app.get(
    ACCEPT_PATH,
    {
      config: { access: 'public' },
      schema: {
        summary: 'The page of an invitation link',
        description:
          'What the e-mailed link opens: a small HTML form (name, password) that posts to ' +
          '`POST /invitations/accept`. The page reads the secret from its own address; the server ' +
          'does not look at it here.',
        tags: ['invitations'],
        produces: ['text/html'],
        response: { 200: Type.String({ description: 'An HTML page.' }) },
      },
    },
    async (_request, reply) => reply.headers(ACCEPT_PAGE_HEADERS).send(ACCEPT_PAGE),
  );

  app.post(
    ACCEPT_PATH,
    {
      config: { access: 'public' },
      schema: {
        summary: 'Accept an invitation',
        description:
          'Joins the tenant of the invitation as an ADMIN member. A new user gives first and last ' +
          'name and a password; an existing user proves who they are with their password. The link ' +
          'works once; an expired, resent-over or deleted one is refused.',
        tags: ['invitations'],
        body: AcceptBody,
        response: { 201: MemberSchema },
      },
    },
    async (request, reply) => {
      const { token, first_name, last_name, password } = request.body;
      const { member } = await services.invitations.accept({ token, first_name, last_name, password });
      return reply.code(201).header('cache-control', 'no-store').send(memberBody(member));
    },
  );
}

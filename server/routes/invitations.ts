import { MAX_INVITATION_PAGE_SIZE } from '../../core/tenancy/invitations.ts';
import { Type, type Static } from 'typebox';
import type { Services } from '../../core/services-contract.ts';
import type { Invitation, SentInvitation } from '../../core/tenancy/contract.ts';
import { principalOf } from '../http/access.ts';
import { idParams, notFoundAs, uuidPathParams } from '../http/ids.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { StringEnum, Timestamp, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

/** RFC 5321 limits a path to 256 octets; requests may carry up to 330 characters. */
const EMAIL_MAX = 330;

const INVITATION_STATUSES = ['PENDING', 'EXPIRED'] as const;

export const InvitationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    tenant_id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    status: StringEnum(INVITATION_STATUSES, {
      description: 'PENDING until `expires_at`, EXPIRED from then on (derived from the time).',
    }),
    expires_at: Timestamp,
    ...ChangeStamps,
  },
  { description: 'An invitation. Its link secret is only ever in the e-mail, never in a response.' },
);

type InvitationBody = Static<typeof InvitationSchema>;

/** Create and resend answers: the invitation and where its mail went (so a person can check). */
export const SentInvitationSchema = Type.Object(
  {
    ...InvitationSchema.properties,
    mail: Type.Object(
      {
        transport: StringEnum(['smtp', 'outbox'] as const, {
          description:
            '`smtp` (sent to an SMTP server) or `outbox` (written as a file on the vault’s machine).',
        }),
        destination: Type.String({
          description: 'The SMTP server as `host:port` (never its credentials), or the outbox folder.',
        }),
      },
      { description: 'Extension: where the invitation e-mail was handed over.' },
    ),
  },
  { description: 'An invitation just mailed. Its link secret is only ever in the e-mail.' },
);

function sentInvitationBody(invitation: SentInvitation): Static<typeof SentInvitationSchema> {
  const { transport, destination } = invitation.mail;
  return { ...invitationBody(invitation), mail: { transport, destination } };
}

const InvitationListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_INVITATION_PAGE_SIZE }).properties,
  status: Type.Optional(StringEnum(INVITATION_STATUSES, { description: 'Only invitations in this status.' })),
});

const CreateInvitationBody = Type.Object(
  {
    email: Type.String({
      minLength: 1,
      maxLength: EMAIL_MAX,
      description: 'The invitee, an RFC 5322 address. Anyone already a member → 409.',
    }),
  },
  { description: 'Unknown fields are ignored.' },
);

const NO_SUCH_INVITATION = 'No such invitation.';
const InvitationParams = idParams('Invitation id (UUID).');
const checkInvitationId = uuidPathParams(NO_SUCH_INVITATION);
const byId = notFoundAs(NO_SUCH_INVITATION);

/** Field by field: a link secret or its hash on the core object can never reach a response. */
export function invitationBody(invitation: Invitation): InvitationBody {
  return {
    id: invitation.id,
    tenant_id: invitation.tenant_id,
    email: invitation.email,
    status: invitation.status,
    expires_at: invitation.expires_at,
    created_by: invitation.created_by,
    created_at: invitation.created_at,
    modified_by: invitation.modified_by,
    modified_at: invitation.modified_at,
  };
}

export function registerInvitationRoutes(app: VaultServer, services: Services): void {
  const invitationTags = ['invitations'];

  app.post(
    '/tenants/self/invitations',
    {
      config: { access: { permission: 'tenant:invitation:create' } },
      schema: {
        summary: 'Invite someone to the tenant',
        description:
          'Sends an e-mail with an accept link, valid for 72 hours. If the mail cannot be sent, the ' +
          'call fails and no invitation is left behind.',
        tags: invitationTags,
        body: CreateInvitationBody,
        response: { 201: SentInvitationSchema },
      },
    },
    async (request, reply) => {
      const invitation = await services.invitations.create(principalOf(request), {
        email: request.body.email,
      });
      return reply.code(201).send(sentInvitationBody(invitation));
    },
  );

  app.get(
    '/tenants/self/invitations',
    {
      config: { access: { permission: 'tenant:invitation:read' } },
      schema: {
        summary: 'List invitations',
        tags: invitationTags,
        querystring: InvitationListQuery,
        response: { 200: paginated(InvitationSchema) },
      },
    },
    async (request) => {
      const { page, size, status } = request.query;
      const result = await services.invitations.list(principalOf(request), { status }, { page, size });
      return paginate(result.items.map(invitationBody), result.total, page, size);
    },
  );

  app.get(
    '/tenants/self/invitations/:id',
    {
      config: { access: { permission: 'tenant:invitation:read' } },
      preValidation: checkInvitationId,
      schema: {
        summary: 'Get an invitation',
        tags: invitationTags,
        params: InvitationParams,
        response: { 200: InvitationSchema },
      },
    },
    async (request) =>
      invitationBody(await byId(services.invitations.get(principalOf(request), request.params.id))),
  );

  app.post(
    '/tenants/self/invitations/:id/resend',
    {
      config: { access: { permission: ['tenant:invitation:create', 'tenant:invitation:update'] } },
      preValidation: checkInvitationId,
      schema: {
        summary: 'Resend an invitation',
        description:
          'Sends a new link and moves `expires_at` to 72 hours from now (PENDING again, even when it ' +
          'had EXPIRED). Every earlier link stops working.',
        tags: invitationTags,
        params: InvitationParams,
        response: { 200: SentInvitationSchema },
      },
    },
    async (request) =>
      sentInvitationBody(await byId(services.invitations.resend(principalOf(request), request.params.id))),
  );

  app.delete(
    '/tenants/self/invitations/:id',
    {
      config: { access: { permission: 'tenant:invitation:delete' } },
      preValidation: checkInvitationId,
      schema: {
        summary: 'Delete an invitation',
        description: 'Every outstanding link stops working.',
        tags: invitationTags,
        params: InvitationParams,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.invitations.delete(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
}

import { Type, type Static } from 'typebox';
import { VaultError, isVaultError } from '../../core/errors/catalogue.ts';
import { MEMBER_ROLES } from '../../core/access/principal.ts';
import type { Services } from '../../core/services-contract.ts';
import type { Invitation, Member, UsageReport } from '../../core/tenancy/admin-contract.ts';
import { principalOf } from '../http/access.ts';
import { idParams, uuidPathParams, uuidSchema } from '../http/ids.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { Nullable, StringEnum, Timestamp } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

/** Members are listed 50 at most per page (service interface); invitations 100. */
export const MEMBER_PAGE_MAX = 50;
export const INVITATION_PAGE_MAX = 100;
/** RFC 5321 limits a path to 256 octets; the reference OpenAPI allows 330 characters in the request. */
const EMAIL_MAX = 330;

const INVITATION_STATUSES = ['PENDING', 'EXPIRED'] as const;

export const UserSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Nullable(Type.String()),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  picture: Nullable(Type.String({ description: 'A picture URL; this vault stores none, so always null.' })),
});

export const MemberSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  tenant_id: Type.String({ format: 'uuid' }),
  role: Type.String({
    description: '`OWNER` (the tenant owner; cannot be removed or lowered) or `ADMIN`.',
  }),
  user: UserSchema,
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  modified_by: Nullable(Type.String()),
  modified_at: Nullable(Timestamp),
});

export const InvitationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    tenant_id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    status: StringEnum(INVITATION_STATUSES, {
      description: 'PENDING until `expires_at`, EXPIRED from then on (derived from the time).',
    }),
    expires_at: Timestamp,
    created_by: Nullable(Type.String()),
    created_at: Timestamp,
    modified_by: Nullable(Type.String()),
    modified_at: Nullable(Timestamp),
  },
  { description: 'An invitation. Its link secret is only ever in the e-mail, never in a response.' },
);

const TokenMetricsSchema = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  last_created_at: Type.Optional(Timestamp),
});

export const UsageReportSchema = Type.Object({
  token_report: Type.Object({
    // A plain `additionalProperties` map (OpenAPI 3.0 knows no patternProperties).
    metrics_by_type: Type.Unsafe<Record<string, Static<typeof TokenMetricsSchema>>>({
      type: 'object',
      additionalProperties: TokenMetricsSchema,
      description: 'Per token type: how many tokens exist and when the newest was created.',
    }),
    included_monthly_active_tokens: Type.Integer({ minimum: 0 }),
    monthly_active_tokens: Type.Integer({
      minimum: 0,
      description: 'Tokens created, read or used this calendar month (UTC), each counted once.',
    }),
    monthly_active_token_history: Type.Array(
      Type.Object({
        year: Type.Integer(),
        month: Type.Integer({ minimum: 1, maximum: 12 }),
        count: Type.Integer({ minimum: 0 }),
      }),
    ),
  }),
});

type MemberBody = Static<typeof MemberSchema>;
type InvitationBody = Static<typeof InvitationSchema>;
type UsageReportBody = Static<typeof UsageReportSchema>;

const MemberListQuery = Type.Object({
  ...pageQuery({ maxSize: MEMBER_PAGE_MAX }).properties,
  user_id: Type.Optional(
    Type.Array(uuidSchema('User id'), {
      maxItems: 100,
      description:
        'Only the members of these users; repeat the parameter for several (`?user_id=a&user_id=b`).',
    }),
  ),
});

const InvitationListQuery = Type.Object({
  ...pageQuery({ maxSize: INVITATION_PAGE_MAX }).properties,
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

const UpdateMemberBody = Type.Object(
  {
    role: StringEnum(MEMBER_ROLES, {
      description: '`OWNER` transfers ownership to this member (the previous owner becomes `ADMIN`).',
    }),
  },
  { description: 'Unknown fields are ignored.' },
);

const NO_SUCH_MEMBER = 'No such member.';
const NO_SUCH_INVITATION = 'No such invitation.';

const MemberParams = idParams('Member id (UUID).');
const InvitationParams = idParams('Invitation id (UUID).');
const checkMemberId = uuidPathParams(NO_SUCH_MEMBER);
const checkInvitationId = uuidPathParams(NO_SUCH_INVITATION);

/**
 * Every 404 of an id route says the same, whether the resource does not exist, is malformed or
 * belongs to another tenant (see routes/applications.ts).
 */
async function byId<T>(work: Promise<T>, detail: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isVaultError(error, 'NOT_FOUND')) throw new VaultError('NOT_FOUND', detail);
    throw error;
  }
}

/** Field by field, so nothing else on the core object (a password hash, say) can reach a response. */
export function memberBody(member: Member): MemberBody {
  return {
    id: member.id,
    tenant_id: member.tenant_id,
    role: member.role,
    user: {
      id: member.user.id,
      email: member.user.email,
      first_name: member.user.first_name,
      last_name: member.user.last_name,
      picture: null,
    },
    created_by: member.created_by,
    created_at: member.created_at,
    modified_by: member.modified_by,
    modified_at: member.modified_at,
  };
}

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

function usageReportBody(report: UsageReport): UsageReportBody {
  const { token_report: tokens } = report;
  return {
    token_report: {
      metrics_by_type: Object.fromEntries(
        Object.entries(tokens.metrics_by_type).map(([type, metrics]) => [
          type,
          metrics.last_created_at === undefined
            ? { count: metrics.count }
            : { count: metrics.count, last_created_at: metrics.last_created_at },
        ]),
      ),
      included_monthly_active_tokens: tokens.included_monthly_active_tokens,
      monthly_active_tokens: tokens.monthly_active_tokens,
      monthly_active_token_history: tokens.monthly_active_token_history.map(({ year, month, count }) => ({
        year,
        month,
        count,
      })),
    },
  };
}

export function registerTenantAdminRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/tenants/self/reports/usage',
    {
      config: { access: { permission: 'report:read' } },
      schema: {
        summary: "The caller's tenant usage report",
        description:
          'Tokens per type, and monthly active tokens: created, read (get, list page, search page) or ' +
          'used this calendar month (UTC), each token once; with the month-by-month history.',
        tags: ['tenants'],
        response: { 200: UsageReportSchema },
      },
    },
    async (request) => usageReportBody(await services.usage.report(principalOf(request))),
  );

  app.get(
    '/tenants/self/reports/operations',
    {
      config: { access: { permission: 'report:read' } },
      schema: {
        summary: "The caller's tenant operations report",
        description:
          'The same report as `/tenants/self/reports/usage`, under the name the reference also lists.',
        tags: ['tenants'],
        response: { 200: UsageReportSchema },
      },
    },
    async (request) => usageReportBody(await services.usage.report(principalOf(request))),
  );

  const memberTags = ['members'];

  app.get(
    '/tenants/self/owner',
    {
      config: { access: { permission: 'tenant:member:read' } },
      schema: {
        summary: "The tenant's owner",
        description: 'The OWNER member, with their user.',
        tags: memberTags,
        response: { 200: MemberSchema },
      },
    },
    async (request) => memberBody(await services.members.owner(principalOf(request))),
  );

  app.put(
    '/tenants/self/members/:id',
    {
      config: { access: { permission: 'tenant:member:update' } },
      preValidation: checkMemberId,
      schema: {
        summary: "Change a member's role",
        description:
          'Setting `OWNER` on a member transfers ownership: the previous owner becomes `ADMIN`. The ' +
          "owner's own role cannot be lowered (422).",
        tags: memberTags,
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: MemberSchema },
      },
    },
    async (request) =>
      memberBody(
        await byId(
          services.members.updateRole(principalOf(request), request.params.id, request.body.role),
          NO_SUCH_MEMBER,
        ),
      ),
  );

  app.get(
    '/tenants/self/members',
    {
      config: { access: { permission: 'tenant:member:read' } },
      schema: {
        summary: 'List tenant members',
        tags: memberTags,
        querystring: MemberListQuery,
        response: { 200: paginated(MemberSchema) },
      },
    },
    async (request) => {
      const { page, size, user_id: userIds } = request.query;
      const result = await services.members.list(
        principalOf(request),
        { userIds: userIds?.map((id) => id.toLowerCase()) },
        { page, size },
      );
      return paginate(result.items.map(memberBody), result.total, page, size);
    },
  );

  app.delete(
    '/tenants/self/members/:id',
    {
      config: { access: { permission: 'tenant:member:delete' } },
      preValidation: checkMemberId,
      schema: {
        summary: 'Remove a tenant member',
        description:
          "Their sessions lose access to this tenant at once. The tenant's OWNER cannot be removed (422).",
        tags: memberTags,
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.members.remove(principalOf(request), request.params.id), NO_SUCH_MEMBER);
      return reply.code(204).send(null);
    },
  );

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
        response: { 201: InvitationSchema },
      },
    },
    async (request, reply) => {
      const invitation = await services.invitations.create(principalOf(request), {
        email: request.body.email,
      });
      return reply.code(201).send(invitationBody(invitation));
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
      invitationBody(
        await byId(services.invitations.get(principalOf(request), request.params.id), NO_SUCH_INVITATION),
      ),
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
        response: { 200: InvitationSchema },
      },
    },
    async (request) =>
      invitationBody(
        await byId(services.invitations.resend(principalOf(request), request.params.id), NO_SUCH_INVITATION),
      ),
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
      await byId(services.invitations.delete(principalOf(request), request.params.id), NO_SUCH_INVITATION);
      return reply.code(204).send(null);
    },
  );
}

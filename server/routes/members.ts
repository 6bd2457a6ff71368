import { MAX_MEMBER_PAGE_SIZE } from '../../core/tenancy/members.ts';
import { Type, type Static } from 'typebox';
import { MEMBER_ROLES } from '../../core/access/principal.ts';
import type { Services } from '../../core/services-contract.ts';
import type { Member } from '../../core/tenancy/contract.ts';
import { principalOf } from '../http/access.ts';
import { idParams, notFoundAs, uuidPathParams, uuidSchema } from '../http/ids.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { Nullable, StringEnum, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

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
  ...ChangeStamps,
});

type MemberBody = Static<typeof MemberSchema>;

const MemberListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_MEMBER_PAGE_SIZE }).properties,
  user_id: Type.Optional(
    Type.Array(uuidSchema('User id'), {
      maxItems: 100,
      description:
        'Only the members of these users; repeat the parameter for several (`?user_id=a&user_id=b`).',
    }),
  ),
});

const UpdateMemberBody = Type.Object(
  {
    role: StringEnum(MEMBER_ROLES, {
      description: '`OWNER` transfers ownership to this member (the previous owner becomes `ADMIN`).',
    }),
  },
  { description: 'Unknown fields are ignored.' },
);

const NO_SUCH_MEMBER = 'No such member.';
const MemberParams = idParams('Member id (UUID).');
const checkMemberId = uuidPathParams(NO_SUCH_MEMBER);
const byId = notFoundAs(NO_SUCH_MEMBER);

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

export function registerMemberRoutes(app: VaultServer, services: Services): void {
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
        await byId(services.members.updateRole(principalOf(request), request.params.id, request.body.role)),
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
      await byId(services.members.remove(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
}

import { Type, type Static } from 'typebox';
import type { Principal } from '../../core/access/principal.ts';
import type { Services, Tenant } from '../../core/services-contract.ts';
import { KNOWN_SETTINGS, SETTING_DEFAULTS, SETTING_DESCRIPTIONS } from '../../core/tenancy/settings.ts';
import { principalOf, userSessionOf } from '../http/access.ts';
import { NullableInput, StringMap, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const NAME_MAX = 200;

/**
 * The stored settings, each setting the vault understands described with what it does, its values
 * and its default (`x-svc-default`: JSON Schema's `default` would tell generated clients the value
 * is always present, while an absent setting is simply at its default). Clients read this to offer
 * each setting as a switch; the tenant service still judges every update.
 */
const TenantSettingsSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  description:
    'Tenant settings; booleans are the strings "true" and "false". An absent setting has its default ' +
    '(`x-svc-default`).',
  properties: Object.fromEntries(
    KNOWN_SETTINGS.map((name) => [
      name,
      {
        type: 'string',
        enum: ['true', 'false'],
        description: SETTING_DESCRIPTIONS[name],
        'x-svc-default': String(SETTING_DEFAULTS[name]),
      },
    ]),
  ),
  additionalProperties: { type: 'string' },
});

export const TenantSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  // Left out for a tenant without an owner (made bare by the operator): never null, as clients of
  // the API this one follows expect.
  owner_id: Type.Optional(Type.String({ format: 'uuid' })),
  name: Type.String(),
  settings: TenantSettingsSchema,
  ...ChangeStamps,
});

type TenantBody = Static<typeof TenantSchema>;

const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: NAME_MAX }) },
  { description: 'Unknown fields are ignored.' },
);

const UpdateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    settings: Type.Optional(
      NullableInput(
        StringMap({
          description: 'Replaces all settings when present; left unchanged when omitted or null.',
          maxProperties: 100,
          maxValueLength: 1000,
        }),
      ),
    ),
  },
  { description: 'Unknown fields are ignored.' },
);

export function tenantBody(tenant: Tenant): TenantBody {
  return {
    id: tenant.id,
    ...(tenant.owner_id === null ? {} : { owner_id: tenant.owner_id }),
    name: tenant.name,
    settings: { ...tenant.settings },
    created_by: tenant.created_by,
    created_at: tenant.created_at,
    modified_by: tenant.modified_by,
    modified_at: tenant.modified_at,
  };
}

const tags = ['tenants'];

export function registerTenantRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/tenants',
    {
      config: { access: 'session' },
      schema: {
        summary: "The signed-in user's tenants",
        description:
          'Every tenant the user is a member of, as a plain array (a user belongs to few tenants).',
        tags,
        response: { 200: Type.Array(TenantSchema) },
      },
    },
    async (request) => {
      const tenants = await services.tenants.listForUser(userSessionOf(request).userId);
      return tenants.map(tenantBody);
    },
  );

  app.post(
    '/tenants',
    {
      config: { access: 'session' },
      schema: {
        summary: 'Create a tenant',
        description:
          'Creates a tenant owned by the signed-in user (OWNER member). No application is created: ' +
          'the owner manages the tenant with the session and SVC-TENANT-ID, and may create applications.',
        tags,
        body: CreateBody,
        response: { 201: TenantSchema },
      },
    },
    async (request, reply) => {
      const { userId, sessionId } = userSessionOf(request);
      // The contract has no actor for "a user outside any tenant"; a user principal records the
      // right actor (actorOf reads only the user id). Its tenant does not exist yet, so the id is
      // left empty: any tenant check made with it fails closed.
      const actor: Principal = { kind: 'user', tenantId: '', userId, sessionId, role: 'OWNER' };
      const { tenant } = await services.tenants.create(
        { name: request.body.name, ownerUserId: userId, withApplication: false },
        actor,
      );
      return reply.code(201).send(tenantBody(tenant));
    },
  );

  app.get(
    '/tenants/self',
    {
      config: { access: { permission: 'tenant:read' } },
      schema: {
        summary: "The caller's tenant",
        description: 'The tenant of the API key, or the one named by SVC-TENANT-ID with a session.',
        tags,
        response: { 200: TenantSchema },
      },
    },
    async (request) => tenantBody(await services.tenants.get(principalOf(request))),
  );

  app.put(
    '/tenants/self',
    {
      config: { access: { permission: 'tenant:update' } },
      schema: {
        summary: "Update the caller's tenant",
        tags,
        body: UpdateBody,
        response: { 200: TenantSchema },
      },
    },
    async (request) => {
      const { name, settings } = request.body;
      return tenantBody(
        await services.tenants.update(principalOf(request), { name, settings: settings ?? undefined }),
      );
    },
  );

  app.delete(
    '/tenants/self',
    {
      config: { access: { permission: 'tenant:delete' } },
      schema: {
        summary: "Delete the caller's tenant",
        description: 'Removes the tenant and all its data, applications and members included.',
        tags,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await services.tenants.delete(principalOf(request));
      return reply.code(204).send(null);
    },
  );
}

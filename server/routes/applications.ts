import { MAX_APPLICATION_PAGE_SIZE } from '../../core/tenancy/applications.ts';
import { Type, type Static } from 'typebox';
import {
  CONDITION_ATTRIBUTES,
  CONDITION_OPERATORS,
  MAX_CONDITIONS,
  MAX_CONDITION_VALUE,
} from '../../core/access/conditions.ts';
import type { Condition } from '../../core/access/conditions.ts';
import { APPLICATION_TYPES } from '../../core/access/permissions.ts';
import { TRANSFORMS, type AccessRule } from '../../core/access/rules.ts';
import { VaultError } from '../../core/errors/catalogue.ts';
import type { Application, ApplicationWithKey, Services } from '../../core/services-contract.ts';
import { principalOf } from '../http/access.ts';
import { idParams, notFoundAs, uuidPathParams, uuidSchema } from '../http/ids.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { Nullable, NullableInput, StringEnum, Timestamp, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const NAME_MAX = 200;
const PERMISSIONS_MAX = 50;

const ConditionSchema = Type.Object(
  {
    attribute: StringEnum(CONDITION_ATTRIBUTES, { description: 'What of the token is compared.' }),
    operator: StringEnum(CONDITION_OPERATORS),
    value: Type.String({ minLength: 1, maxLength: MAX_CONDITION_VALUE }),
  },
  { description: 'A rule condition, e.g. `{attribute: "id", operator: "equals", value: "<token id>"}`.' },
);

const RuleSchema = Type.Object(
  {
    description: Type.Optional(NullableInput(Type.String({ maxLength: 200 }))),
    priority: Type.Integer({ description: 'Evaluation order, from 1 (first); unique per application.' }),
    container: Type.Optional(
      NullableInput(
        Type.String({
          maxLength: 500,
          description:
            "Container path the rule covers, e.g. '/pci/high/'. Required except on expiring applications, which use conditions instead.",
        }),
      ),
    ),
    permissions: Type.Array(Type.String({ maxLength: 100 }), { maxItems: PERMISSIONS_MAX }),
    transform: StringEnum(TRANSFORMS, { description: 'How token data is shown when this rule decides.' }),
    conditions: Type.Optional(
      NullableInput(
        Type.Array(ConditionSchema, {
          maxItems: MAX_CONDITIONS,
          description:
            'Expiring applications only, instead of a container: the rule covers the tokens matching every condition.',
        }),
      ),
    ),
  },
  { description: 'Unknown fields are ignored.' },
);

const RuleResponse = Type.Object({
  description: Type.String(),
  priority: Type.Integer(),
  container: Type.Optional(Type.String({ description: 'Absent on a rule limited by conditions.' })),
  conditions: Type.Optional(
    Type.Array(ConditionSchema, { description: 'Present on expiring applications only.' }),
  ),
  permissions: Type.Array(Type.String()),
  transform: StringEnum(TRANSFORMS),
});

const applicationProperties = {
  id: Type.String({ format: 'uuid' }),
  tenant_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  type: StringEnum(APPLICATION_TYPES),
  permissions: Type.Array(Type.String()),
  rules: Type.Array(RuleResponse),
  ...ChangeStamps,
  expires_at: Nullable(Timestamp),
  can_create_expiring_applications: Type.Boolean({
    description: 'Private applications: whether their key may create expiring applications.',
  }),
};

/** Every application response but create and regenerate: no `key`, ever. */
export const ApplicationSchema = Type.Object(applicationProperties, {
  description: 'An application. Its API key is shown only when created or regenerated.',
});

/** Create and regenerate responses: the one place a key is shown. */
export const ApplicationWithKeySchema = Type.Object(
  {
    ...applicationProperties,
    key: Type.String({ description: 'The API key. Shown once: store it now, it cannot be read again.' }),
  },
  { description: 'An application with its new API key.' },
);

type ApplicationBody = Static<typeof ApplicationSchema>;
type ApplicationWithKeyBody = Static<typeof ApplicationWithKeySchema>;

const PermissionsInput = Type.Array(Type.String({ maxLength: 100 }), { maxItems: PERMISSIONS_MAX });
const RulesInput = Type.Array(RuleSchema, { maxItems: 100 });

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    type: StringEnum(APPLICATION_TYPES),
    permissions: Type.Optional(NullableInput(PermissionsInput)),
    rules: Type.Optional(NullableInput(RulesInput)),
    expires_at: Type.Optional(
      NullableInput(
        Type.String({
          maxLength: 40,
          description: 'Expiring applications only: default one minute from now, at most one day ahead.',
        }),
      ),
    ),
    can_create_expiring_applications: Type.Optional(NullableInput(Type.Boolean())),
  },
  {
    description:
      'Unknown fields are ignored; `null` means not given. A private key whose application may create expiring applications creates `type: "expiring"` only.',
  },
);

const UpdateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    permissions: Type.Optional(NullableInput(PermissionsInput)),
    rules: Type.Optional(NullableInput(RulesInput)),
    can_create_expiring_applications: Type.Optional(NullableInput(Type.Boolean())),
  },
  {
    description:
      'Full replacement; the type cannot change. Unknown fields (the type among them) are ignored; `null` means not given.',
  },
);

const ListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_APPLICATION_PAGE_SIZE }).properties,
  id: Type.Optional(
    Type.Array(uuidSchema('Application id'), {
      maxItems: 100,
      description: 'Only these applications; repeat the parameter for several (`?id=a&id=b`).',
    }),
  ),
  type: Type.Optional(
    Type.Array(StringEnum(APPLICATION_TYPES), {
      maxItems: APPLICATION_TYPES.length,
      description: 'Only applications of these types; repeat the parameter for several (`?type=a&type=b`).',
    }),
  ),
});

const Params = idParams('Application id (UUID).');

const NO_SUCH_APPLICATION = 'No such application.';

/** A malformed id is a 404 like any other (see uuidPathParams). */
const checkId = uuidPathParams(NO_SUCH_APPLICATION);

const byId = notFoundAs(NO_SUCH_APPLICATION);

type RuleInput = Static<typeof RuleSchema>;

/**
 * The rules as core takes them, field by field so that unknown fields are not stored; `null`
 * (not given) becomes undefined, a `null` description an empty one.
 */
function rulesInput(rules: RuleInput[] | null | undefined): AccessRule[] | undefined {
  return rules?.map((rule) => {
    const conditions = rule.conditions?.map(conditionOf) ?? [];
    return {
      description: rule.description ?? '',
      priority: rule.priority,
      // No container on a conditioned rule is '' (core refuses it where a container is needed).
      container: rule.container ?? '',
      permissions: rule.permissions,
      transform: rule.transform,
      ...(conditions.length > 0 ? { conditions } : {}),
    };
  });
}

function conditionOf(condition: Condition): Condition {
  return { attribute: condition.attribute, operator: condition.operator, value: condition.value };
}

function ruleBody(rule: AccessRule): Static<typeof RuleResponse> {
  const conditioned = rule.conditions !== undefined && rule.conditions.length > 0;
  return {
    description: rule.description,
    priority: rule.priority,
    ...(conditioned
      ? { conditions: (rule.conditions ?? []).map(conditionOf) }
      : { container: rule.container }),
    permissions: [...rule.permissions],
    transform: rule.transform,
  };
}

/** Field by field, so that a key on the core object can never reach a response without one. */
export function applicationBody(application: Application): ApplicationBody {
  return {
    id: application.id,
    tenant_id: application.tenant_id,
    name: application.name,
    type: application.type,
    permissions: [...application.permissions],
    rules: application.rules.map(ruleBody),
    created_by: application.created_by,
    created_at: application.created_at,
    modified_by: application.modified_by,
    modified_at: application.modified_at,
    expires_at: application.expires_at,
    can_create_expiring_applications: application.can_create_expiring_applications,
  };
}

function applicationWithKeyBody(application: ApplicationWithKey): ApplicationWithKeyBody {
  return { ...applicationBody(application), key: application.key };
}

const tags = ['applications'];

export function registerApplicationRoutes(app: VaultServer, services: Services): void {
  registerApplicationCollectionRoutes(app, services);
  registerApplicationItemRoutes(app, services);
}

/** Creating and listing applications, and the application of the calling key. */
function registerApplicationCollectionRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/applications',
    {
      config: { access: { permission: 'application:create' } },
      schema: {
        summary: 'Create an application',
        description: 'Returns the new application with its API key, which is shown only this once.',
        tags,
        body: CreateBody,
        response: { 201: ApplicationWithKeySchema },
      },
    },
    async (request, reply) => {
      const { name, type, permissions, rules, expires_at, can_create_expiring_applications } = request.body;
      const created = await services.applications.create(principalOf(request), {
        name,
        type,
        permissions: permissions ?? undefined,
        rules: rulesInput(rules),
        expires_at: expires_at ?? undefined,
        can_create_expiring_applications: can_create_expiring_applications ?? undefined,
      });
      return reply.code(201).header('cache-control', 'no-store').send(applicationWithKeyBody(created));
    },
  );

  app.get(
    '/applications',
    {
      config: { access: { permission: 'application:read' } },
      schema: {
        summary: 'List applications',
        tags,
        querystring: ListQuery,
        response: { 200: paginated(ApplicationSchema) },
      },
    },
    async (request) => {
      const { page, size, id, type } = request.query;
      const ids = id?.map((value) => value.toLowerCase());
      const result = await services.applications.list(
        principalOf(request),
        { ids, types: type },
        { page, size },
      );
      return paginate(result.items.map(applicationBody), result.total, page, size);
    },
  );

  // Before `/applications/:id` in the file for the reader; the router prefers the static path anyway.
  app.get(
    '/applications/key',
    {
      // Any valid API key, whatever its type and grants: a "who am I" call.
      config: { access: 'authenticated' },
      schema: {
        summary: 'Get the calling application',
        description:
          'The application that owns the presented SVC-API-KEY (never its key), for any valid key. ' +
          'A user session has no application: 404.',
        tags,
        response: { 200: ApplicationSchema },
      },
    },
    async (request) => {
      if (request.principal === null) {
        throw new VaultError('NOT_FOUND', 'The caller is not an application: send an SVC-API-KEY.');
      }
      return applicationBody(await services.applications.getSelf(request.principal));
    },
  );
}

/** One application by id: read, update, delete, regenerate its key. */
function registerApplicationItemRoutes(app: VaultServer, services: Services): void {
  app.get(
    '/applications/:id',
    {
      config: { access: { permission: 'application:read' } },
      preValidation: checkId,
      schema: { summary: 'Get an application', tags, params: Params, response: { 200: ApplicationSchema } },
    },
    async (request) =>
      applicationBody(await byId(services.applications.get(principalOf(request), request.params.id))),
  );

  app.put(
    '/applications/:id',
    {
      config: { access: { permission: 'application:update' } },
      preValidation: checkId,
      schema: {
        summary: 'Update an application',
        description: 'Replaces name, permissions and rules. The type cannot change.',
        tags,
        params: Params,
        body: UpdateBody,
        response: { 200: ApplicationSchema },
      },
    },
    async (request) => {
      const { name, permissions, rules, can_create_expiring_applications } = request.body;
      const updated = await byId(
        services.applications.update(principalOf(request), request.params.id, {
          name,
          permissions: permissions ?? undefined,
          rules: rulesInput(rules),
          can_create_expiring_applications: can_create_expiring_applications ?? undefined,
        }),
      );
      return applicationBody(updated);
    },
  );

  app.delete(
    '/applications/:id',
    {
      config: { access: { permission: 'application:delete' } },
      preValidation: checkId,
      schema: {
        summary: 'Delete an application',
        description: 'Its key stops working at once.',
        tags,
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.applications.delete(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/applications/:id/regenerate',
    {
      config: { access: { permission: 'application:update' } },
      preValidation: checkId,
      schema: {
        summary: "Regenerate an application's key",
        description: 'Issues a new key, shown only in this response; the old key stops working at once.',
        tags,
        params: Params,
        response: { 200: ApplicationWithKeySchema },
      },
    },
    async (request, reply) => {
      const regenerated = await byId(
        services.applications.regenerate(principalOf(request), request.params.id),
      );
      return reply.header('cache-control', 'no-store').send(applicationWithKeyBody(regenerated));
    },
  );
}

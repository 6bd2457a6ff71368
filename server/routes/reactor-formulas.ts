import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import {
  FORMULA_STATUSES,
  FORMULA_TYPES,
  MAX_REACTOR_PAGE_SIZE,
  PARAMETER_TYPES,
  type ReactorFormula,
  type SavedFormula,
} from '../../core/reactors/contract.ts';
import {
  FORMULA_CODE_MAX,
  FORMULA_DESCRIPTION_MAX,
  FORMULA_ICON_MAX,
} from '../../core/reactors/formula-input.ts';
import type { Services } from '../../core/services-contract.ts';
import { NAME_MAX } from '../../core/validation/fields.ts';
import { principalOf } from '../http/access.ts';
import { idParams, notFoundAs, uuidPathParams, uuidSchema } from '../http/ids.ts';
import { pageQuery, paginate, paginated } from '../http/pagination.ts';
import { Nullable, StringEnum, ChangeStamps } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const ConfigurationSettingSchema = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  type: StringEnum(PARAMETER_TYPES),
});

const RequestParameterSchema = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  type: StringEnum(PARAMETER_TYPES),
  optional: Type.Boolean(),
});

export const ReactorFormulaSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    type: StringEnum(FORMULA_TYPES),
    status: StringEnum(FORMULA_STATUSES),
    icon: Nullable(Type.String()),
    code: Type.String(),
    configuration: Type.Array(ConfigurationSettingSchema),
    request_parameters: Type.Array(RequestParameterSchema),
    ...ChangeStamps,
  },
  { description: 'A reactor formula: CommonJS code exporting one async function, and its contracts.' },
);

const FormulaBody = Type.Object(
  {
    name: Type.String({ maxLength: NAME_MAX }),
    description: Type.Optional(Nullable(Type.String({ maxLength: FORMULA_DESCRIPTION_MAX }))),
    type: Type.String({ description: 'private (official formulas ship with the vault).' }),
    status: Type.Optional(Nullable(Type.String({ description: 'verified (default) or coming_soon.' }))),
    icon: Type.Optional(Nullable(Type.String({ maxLength: FORMULA_ICON_MAX }))),
    code: Type.String({
      maxLength: FORMULA_CODE_MAX,
      description: 'CommonJS: `module.exports = async function (req) { … }`; checked on every write.',
    }),
    configuration: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 25 })),
    request_parameters: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 25 })),
  },
  { description: 'Full replacement on update.' },
);

export const NameListQuery = Type.Object({
  ...pageQuery({ maxSize: MAX_REACTOR_PAGE_SIZE }).properties,
  id: Type.Optional(
    Type.Array(uuidSchema('Id'), { maxItems: 100, description: 'Only these ids; repeat for several.' }),
  ),
  name: Type.Optional(
    Type.String({
      maxLength: NAME_MAX,
      description: 'Wildcard search: `*` matches anything; else a substring.',
    }),
  ),
});

type FormulaJson = Static<typeof ReactorFormulaSchema>;

export function formulaBody(formula: ReactorFormula): FormulaJson {
  return {
    id: formula.id,
    name: formula.name,
    description: formula.description,
    type: formula.type,
    status: formula.status,
    icon: formula.icon,
    code: formula.code,
    configuration: formula.configuration.map((s) => ({ ...s })),
    request_parameters: formula.request_parameters.map((p) => ({ ...p })),
    created_by: formula.created_by,
    created_at: formula.created_at,
    modified_by: formula.modified_by,
    modified_at: formula.modified_at,
  };
}

const NO_SUCH_FORMULA = 'No such reactor formula.';
const checkId = uuidPathParams(NO_SUCH_FORMULA);
const Params = idParams('Reactor formula id (UUID).');

const byId = notFoundAs(NO_SUCH_FORMULA);

const tags = ['reactor formulas'];

/** The response header that carries a saved formula's warning (see FormulaWarning). */
export const FORMULA_WARNING_HEADER = 'svc-warning';

/** Longest warning header value; a compile message quotes a token of the code, which may be long. */
const WARNING_HEADER_MAX = 1000;

/** A header value: printable ASCII only (the quoted token may be any character), bounded. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, WARNING_HEADER_MAX);
}

/**
 * The body stays the formula as clients of the API know it (strict generated clients refuse an
 * unknown property), so a warning travels in a header: the text the invocation's 422 will carry.
 */
function withWarnings(reply: FastifyReply, saved: SavedFormula): FormulaJson {
  const warning = saved.warnings[0];
  if (warning !== undefined) reply.header(FORMULA_WARNING_HEADER, headerText(warning.detail));
  return formulaBody(saved.formula);
}

const savedResponseHeaders = {
  'SVC-Warning': {
    type: 'string',
    description:
      'Present when the code does not compile or export one function: the formula is saved as ' +
      'sent, and invoking a reactor of it answers 422 with this text, ' +
      '`Invalid Reactor Formula: line <n>, column <m>: <message>` (line and column in the code, ' +
      'from 1; printable ASCII).',
  },
};

export function registerReactorFormulaRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/reactor-formulas',
    {
      config: { access: { permission: 'reactor:create' } },
      schema: {
        summary: 'Create a reactor formula',
        description:
          'Code that does not compile or export one function is saved as sent, with an `SVC-Warning` ' +
          'header saying where; reactors of it answer 422 at invocation until it is fixed.',
        tags,
        body: FormulaBody,
        response: { 201: { ...ReactorFormulaSchema, headers: savedResponseHeaders } },
      },
    },
    async (request, reply) => {
      const saved = await services.reactors.createFormula(principalOf(request), request.body);
      return reply.code(201).send(withWarnings(reply, saved));
    },
  );

  app.get(
    '/reactor-formulas',
    {
      config: { access: { permission: 'reactor:read' } },
      schema: {
        summary: 'List reactor formulas',
        description: 'The official formulas and the tenant private ones.',
        tags,
        querystring: NameListQuery,
        response: { 200: paginated(ReactorFormulaSchema) },
      },
    },
    async (request) => {
      const { page, size, id, name } = request.query;
      const result = await services.reactors.listFormulas(
        principalOf(request),
        { ids: id, name },
        { page, size },
      );
      return paginate(result.items.map(formulaBody), result.total, page, size);
    },
  );

  app.get(
    '/reactor-formulas/:id',
    {
      config: { access: { permission: 'reactor:read' } },
      preValidation: checkId,
      schema: {
        summary: 'Get a reactor formula',
        tags,
        params: Params,
        response: { 200: ReactorFormulaSchema },
      },
    },
    async (request) =>
      formulaBody(await byId(services.reactors.getFormula(principalOf(request), request.params.id))),
  );

  app.put(
    '/reactor-formulas/:id',
    {
      config: { access: { permission: 'reactor:update' } },
      preValidation: checkId,
      schema: {
        summary: 'Update a reactor formula',
        description:
          'Full replacement. Official formulas are read-only (403). Code that does not compile is ' +
          'saved with an `SVC-Warning` header, as on create.',
        tags,
        params: Params,
        body: FormulaBody,
        response: { 200: { ...ReactorFormulaSchema, headers: savedResponseHeaders } },
      },
    },
    async (request, reply) =>
      withWarnings(
        reply,
        await byId(services.reactors.updateFormula(principalOf(request), request.params.id, request.body)),
      ),
  );

  app.delete(
    '/reactor-formulas/:id',
    {
      config: { access: { permission: 'reactor:delete' } },
      preValidation: checkId,
      schema: {
        summary: 'Delete a reactor formula',
        description: 'Refused with 409 while reactors use it; official formulas are read-only (403).',
        tags,
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (request, reply) => {
      await byId(services.reactors.deleteFormula(principalOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
}

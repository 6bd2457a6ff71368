import { Type, type Static } from 'typebox';
import { APPLICATION_TYPES } from '../../core/access/permissions.ts';
import { TRANSFORMS } from '../../core/access/rules.ts';
import { VaultError } from '../../core/errors/catalogue.ts';
import {
  APPLICATION_TEMPLATES,
  findApplicationTemplate,
  type ApplicationTemplate,
} from '../../core/tenancy/application-templates.ts';
import { idParams, uuidPathParams } from '../http/ids.ts';
import { StringEnum } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const ApplicationTemplateSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.String(),
    application_type: StringEnum(APPLICATION_TYPES),
    template_type: Type.String({ description: '`backend`, `collector` or `reporting`.' }),
    is_starter: Type.Boolean(),
    rules: Type.Array(
      Type.Object({
        description: Type.String(),
        priority: Type.Integer(),
        container: Type.String(),
        permissions: Type.Array(Type.String()),
        transform: StringEnum(TRANSFORMS),
      }),
    ),
    permissions: Type.Array(Type.String()),
  },
  {
    description:
      'A starting point for an application: POST its type, permissions and rules to /applications.',
  },
);

type TemplateBody = Static<typeof ApplicationTemplateSchema>;

const NO_SUCH_TEMPLATE = 'No such application template.';

function templateBody(template: ApplicationTemplate): TemplateBody {
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    application_type: template.application_type,
    template_type: template.template_type,
    is_starter: template.is_starter,
    rules: template.rules.map((rule) => ({ ...rule, permissions: [...rule.permissions] })),
    permissions: [...template.permissions],
  };
}

const tags = ['applications'];

/** Built-in templates: static, the same for every tenant, so any valid credential may read them. */
export function registerApplicationTemplateRoutes(app: VaultServer): void {
  app.get(
    '/application-templates',
    {
      config: { access: 'authenticated' },
      schema: {
        summary: 'List application templates',
        tags,
        response: { 200: Type.Array(ApplicationTemplateSchema) },
      },
    },
    async () => APPLICATION_TEMPLATES.map(templateBody),
  );

  app.get(
    '/application-templates/:id',
    {
      config: { access: 'authenticated' },
      preValidation: uuidPathParams(NO_SUCH_TEMPLATE),
      schema: {
        summary: 'Get an application template',
        tags,
        params: idParams('Template id (UUID).'),
        response: { 200: ApplicationTemplateSchema },
      },
    },
    async (request) => {
      const template = findApplicationTemplate(request.params.id);
      if (template === undefined) throw new VaultError('NOT_FOUND', NO_SUCH_TEMPLATE);
      return templateBody(template);
    },
  );
}

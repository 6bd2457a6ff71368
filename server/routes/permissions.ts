import { Type } from 'typebox';
import { APPLICATION_TYPES, PERMISSIONS } from '../../core/access/permissions.ts';
import { StringEnum } from '../http/schemas.ts';
import type { VaultServer } from '../types.ts';

const PermissionSchema = Type.Object({
  type: Type.String({ description: 'The permission, `resource:action`.' }),
  description: Type.String(),
  application_types: Type.Array(StringEnum(APPLICATION_TYPES), {
    description: 'Application types that may hold it.',
  }),
});

const Query = Type.Object({
  application_type: Type.Optional(
    StringEnum(APPLICATION_TYPES, { description: 'Only permissions this application type may hold.' }),
  ),
});

export function registerPermissionRoutes(app: VaultServer): void {
  app.get(
    '/permissions',
    {
      // The catalogue is the same for everyone; any valid credential may read it.
      config: { access: 'authenticated' },
      schema: {
        summary: 'The permission catalogue',
        tags: ['permissions'],
        querystring: Query,
        response: { 200: Type.Array(PermissionSchema) },
      },
    },
    async (request) => {
      const type = request.query.application_type;
      return PERMISSIONS.filter((p) => type === undefined || p.application_types.includes(type)).map((p) => ({
        type: p.type,
        description: p.description,
        application_types: [...p.application_types],
      }));
    },
  );
}

import { Type } from 'typebox';
import { validationError } from '../../core/errors/catalogue.ts';
import type { Services } from '../../core/services-contract.ts';
import { principalOf, ViewHeaders } from '../http/access.ts';
import type { VaultServer } from '../types.ts';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function registerDetokenizeRoutes(app: VaultServer, services: Services): void {
  app.post(
    '/detokenize',
    {
      config: { access: { permission: 'token:read' } },
      schema: {
        summary: 'Detokenize a payload',
        description:
          'Replaces every `{{ <token id> | filters }}` expression in any JSON value by the token data, ' +
          'as the `token:read` transform of each token container shows it (masked unless a rule ' +
          'reveals). A string that is exactly one expression takes the value itself (a card token ' +
          'as its object). At most 100 distinct tokens; unknown ids, and tokens the caller may not read, ' +
          '→ 400 alike.',
        tags: ['tokens'],
        headers: ViewHeaders,
        body: Type.Unknown({ description: 'Any JSON value holding detokenization expressions.' }),
        response: { 200: Type.Unknown({ description: 'The value with each expression replaced.' }) },
      },
    },
    async (request, reply) => {
      if (request.body === undefined) throw validationError({ body: ['is required'] });
      const result = await services.detokenizer.detokenize(principalOf(request), request.body, {
        permission: 'token:read',
        field: 'body',
      });
      // Serialized here: a bare string result would otherwise be sent as text.
      return reply
        .type(JSON_CONTENT_TYPE)
        .header('cache-control', 'no-store')
        .send(JSON.stringify(result ?? null));
    },
  );
}

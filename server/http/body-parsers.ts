import type { VaultServer } from '../types.ts';

/**
 * The API speaks JSON only. Fastify's text/plain parser is removed so that a wrong content type is
 * a 415 instead of a confusing validation error; routes that need other types (the proxy) add
 * their own parser in their plugin scope.
 *
 * An empty body with `Content-Type: application/json` (some clients send the header on every
 * DELETE) counts as no body instead of malformed JSON; a route that needs a body still says so
 * through its schema.
 */
export function installBodyParsers(app: VaultServer): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.length === 0) done(null, undefined);
    else parseJson(request, text, done);
  });
}

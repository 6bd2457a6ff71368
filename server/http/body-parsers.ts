import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify';
import { VaultError, validationError } from '../../core/errors/catalogue.ts';
import { decodeJsonBody, jsonTextProblem } from '../../core/validation/json-text.ts';
import type { VaultServer } from '../types.ts';

type JsonParser = ReturnType<VaultServer['getDefaultJsonParser']>;
type Done = (error: Error | null, body?: unknown) => void;

/**
 * Parses a JSON body from its bytes: invalid UTF-8 is a 400 MALFORMED_JSON; numbers that would not
 * survive parsing unchanged, lone-surrogate escapes and over-deep nesting are a 400
 * VALIDATION_FAILED under `body` (the rules: core/validation/json-text.ts). Nothing is coerced.
 * An empty body counts as no body.
 */
function parseJsonBody(parseJson: JsonParser, request: FastifyRequest, bytes: Buffer, done: Done): void {
  if (bytes.length === 0) {
    done(null, undefined);
    return;
  }
  const decoded = decodeJsonBody(bytes);
  if ('kind' in decoded) {
    done(new VaultError('MALFORMED_JSON', decoded.message));
    return;
  }
  const problem = jsonTextProblem(decoded.text);
  if (problem !== null) {
    done(validationError({ body: [problem.message] }));
    return;
  }
  parseJson(request, decoded.text, done);
}

/**
 * The API speaks JSON only. Fastify's text/plain parser is removed so that a wrong content type is
 * a 415 instead of a confusing validation error; routes that need other types (the proxy) add
 * their own parser in their plugin scope.
 *
 * An empty body with `Content-Type: application/json` (some clients send the header on every
 * DELETE) counts as no body instead of malformed JSON; a route that needs a body still says so
 * through its schema. Bodies are checked from their bytes first (parseJsonBody).
 */
export function installBodyParsers(app: VaultServer): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) =>
    parseJsonBody(parseJson, request, body as Buffer, done),
  );
}

/** RFC 7386 JSON merge patch: the only body `PATCH /tokens/{id}` takes. */
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';

/** The media type of a Content-Type header, lower case, without parameters; undefined when absent. */
export function mediaTypeOf(header: string | string[] | undefined): string | undefined {
  const value = [header ?? []].flat()[0];
  if (value === undefined) return undefined;
  const bare = value.split(';', 1)[0]?.trim().toLowerCase();
  return bare === undefined || bare === '' ? undefined : bare;
}

/**
 * Adds the merge-patch parser to `scope` (a plugin scope holding the merge-patch routes, so the
 * rest of the API keeps answering this type with 415). It parses like the JSON parser, raw-text
 * checks and prototype poisoning checks included; an empty body counts as no body.
 */
export function installMergePatchParser(scope: VaultServer): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.addContentTypeParser(MERGE_PATCH_CONTENT_TYPE, { parseAs: 'buffer' }, (request, body, done) =>
    parseJsonBody(parseJson, request, body as Buffer, done),
  );
}

/**
 * preParsing hook of a merge-patch route: any other Content-Type, `application/json` included, or
 * none at all, is a 415 naming the one accepted type. It runs after the access check (so a stranger
 * still gets 401/403) and before the body is read.
 */
export const requireMergePatch: preParsingAsyncHookHandler = async (request) => {
  if (mediaTypeOf(request.headers['content-type']) !== MERGE_PATCH_CONTENT_TYPE) {
    throw new VaultError(
      'UNSUPPORTED_MEDIA_TYPE',
      `This endpoint takes a JSON merge patch (RFC 7386): send Content-Type: ${MERGE_PATCH_CONTENT_TYPE}.`,
    );
  }
};

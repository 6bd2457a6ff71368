import type { FastifyRequest } from 'fastify';

/**
 * The query string of a request as ordered `[name, value]` pairs, decoded as a form would be
 * (`%XX` escapes, `+` as space). For endpoints whose parameter names carry structure that Fastify's
 * flat parser does not know (`metadata.<key>=v`, `metadata[key]=v`): read the raw URL, not
 * `request.query`.
 */
export function queryPairs(request: Pick<FastifyRequest, 'url'>): Array<[string, string]> {
  const start = request.url.indexOf('?');
  if (start === -1) return [];
  return [...new URLSearchParams(request.url.slice(start + 1)).entries()];
}

import type { ApiClient } from '../../../../client/api-client.js';
import type { ImportRequest, ImportTransport } from '../../../../client/token-import.js';
import { ApiError, unwrap } from '../api/problem.ts';

/**
 * Errors that belong to the lines sent (the request's own fault); any other answer (401, 429, 5xx,
 * no answer at all) is the vault's or the network's and stops the import.
 */
const LINE_STATUSES = new Set([400, 403, 404, 409, 413, 415, 422]);

/** A failed line's message: the server's detail with the fields it names. */
export function importMessageOf(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : 'failed';
  const fields = Object.entries(error.problem.errors ?? {}).map(([f, m]) => `${f}: ${m.join('; ')}`);
  return [error.message, ...fields].join(' — ');
}

/** The import's requests through `client` (the console's: as the Tokens screen's application). */
export function importTransport(client: ApiClient): ImportTransport<ImportRequest> {
  return {
    async tokenize(requests) {
      const views = await unwrap(
        client.POST('/tokenize', { body: requests.map((r) => ({ ...r, type: r.type ?? 'token' })) }),
      );
      if (!Array.isArray(views)) throw new Error('tokenize answered a batch with an unexpected shape');
      return views.map((v: unknown) => String((v as { id?: unknown }).id));
    },
    async create(request) {
      const { data, error, response } = await client.POST('/tokens', { body: request as never });
      if (data === undefined) await unwrap(Promise.resolve({ error, response }));
      return { id: data!.id, created: response.status === 201 };
    },
    isLineError: (error) => error instanceof ApiError && LINE_STATUSES.has(error.status),
  };
}

import { createApiClient, type paths, type Problem } from '../../../../client/api-client.js';
import { applicationAuth, sessionAuth } from './auth';

export type { Problem };
export { currentTokenKey, setCredentials, setTokenKey, whenUnauthorized } from './auth';

/** A failed request: the status and the server's problem, shown as they are. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}.`);
  }

  /** The server's messages for one field, empty when it named none. */
  fieldErrors(field: string): readonly string[] {
    return this.problem.errors?.[field] ?? [];
  }
}

/** Messages for `field` when `error` is a problem that names it. */
export function fieldErrorsOf(error: unknown, field: string): readonly string[] {
  return error instanceof ApiError ? error.fieldErrors(field) : [];
}

/**
 * The shared typed client of the API (client/api-client.ts, the CLI's too), on this page's origin:
 * `api` as the signed-in member, `tokenApi` as the application the Tokens screen acts as.
 */
export const api = createApiClient({ baseUrl: window.location.origin });
api.use(sessionAuth);

export const tokenApi = createApiClient({ baseUrl: window.location.origin });
tokenApi.use(applicationAuth);

/** The data of a successful answer; an ApiError carrying the problem otherwise. */
export async function unwrap<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) {
    const problem: Problem =
      typeof error === 'object' && error !== null ? (error as Problem) : { title: response.statusText };
    throw new ApiError(response.status, problem);
  }
  return data as T;
}

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: infer R };
}
  ? Json<R>
  : never;

export type Tenant = Ok<'/tenants', 'get'>[number];
export type TokenView = Ok<'/tokens/{id}', 'get'>;
export type Application = Ok<'/applications/{id}', 'get'>;
export type ApplicationRule = Application['rules'][number];
export type NewApplication = paths['/applications']['post']['requestBody']['content']['application/json'];
export type Permission = Ok<'/permissions', 'get'>[number];
export type LogEntry = Ok<'/logs', 'get'>['data'][number];
export type Member = Ok<'/tenants/self/members', 'get'>['data'][number];
export type Invitation = Ok<'/tenants/self/invitations', 'get'>['data'][number];
export type SentInvitation = Ok<'/tenants/self/invitations/{id}/resend', 'post'>;
export type UsageReport = Ok<'/tenants/self/reports/usage', 'get'>;
export type ProxyView = Ok<'/proxies/{id}', 'get'>;
export interface Pagination {
  readonly total_items: number;
  readonly page_number: number;
  readonly page_size: number;
  readonly total_pages: number;
}

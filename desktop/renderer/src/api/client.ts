import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../../client/schema.js';

export { ApiError, fieldErrorsOf, type Problem } from './problem';
import { ApiError, type Problem } from './problem';

/**
 * What this page adds to its requests. The session itself is the console cookie (HttpOnly: no
 * script reads it; the browser sends it to this origin only); the page holds the session's CSRF
 * value, in memory only, and sends it as SVC-CSRF on every request, which the server requires of
 * every request that carries the cookie.
 */
interface Credentials {
  csrf: string | null;
  tenantId: string | null;
}
const credentials: Credentials = { csrf: null, tenantId: null };
let onUnauthorized: () => void = () => undefined;

export function setCredentials(next: Partial<Credentials>): void {
  Object.assign(credentials, next);
}

/** Called when the server refuses the session (expired or revoked elsewhere). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

const authenticate: Middleware = {
  onRequest({ request }) {
    if (credentials.csrf !== null) request.headers.set('svc-csrf', credentials.csrf);
    if (credentials.tenantId !== null) request.headers.set('svc-tenant-id', credentials.tenantId);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && credentials.csrf !== null) onUnauthorized();
    return response;
  },
};

/**
 * The one HTTP client of the console, typed by the server's OpenAPI document. Same-origin
 * requests carry the console cookie; no other origin is ever called.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(authenticate);

/**
 * The client of the token screens. Token permissions belong to applications, never to members: on
 * token endpoints the server lets the console session act through its token access (its session
 * application, or the application whose key its member gave; `PUT /console/token-access`), so
 * these requests carry no key.
 */
export const tokenApi = api;

/**
 * The key given on the Tokens screen in this page, in memory only: the proxy test request sends it
 * itself, because /proxy never accepts the console session. A reload forgets it (the server keeps
 * the choice for the token endpoints).
 */
let tokenKey: string | null = null;

export function setTokenKey(key: string | null): void {
  tokenKey = key;
}

export function currentTokenKey(): string | null {
  return tokenKey;
}

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

export type Schemas = components['schemas'];
export type Tenant = paths['/tenants']['get']['responses'][200]['content']['application/json'][number];
export type TokenView = paths['/tokens/{id}']['get']['responses'][200]['content']['application/json'];
export type TokenAccess =
  paths['/console/token-access']['get']['responses'][200]['content']['application/json'];
export type Application = paths['/applications/{id}']['get']['responses'][200]['content']['application/json'];
export type NewApplication = paths['/applications']['post']['requestBody']['content']['application/json'];
export type Permission =
  paths['/permissions']['get']['responses'][200]['content']['application/json'][number];
export type LogEntry = paths['/logs']['get']['responses'][200]['content']['application/json']['data'][number];
export type Member =
  paths['/tenants/self/members']['get']['responses'][200]['content']['application/json']['data'][number];
export type Invitation =
  paths['/tenants/self/invitations']['get']['responses'][200]['content']['application/json']['data'][number];
export type UsageReport =
  paths['/tenants/self/reports/usage']['get']['responses'][200]['content']['application/json'];
export interface Pagination {
  readonly total_items: number;
  readonly page_number: number;
  readonly page_size: number;
  readonly total_pages: number;
}

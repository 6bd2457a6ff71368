import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../../client/schema.js';

/** An RFC 9457 problem as the server answers it (`errors`: field → messages). */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly errors?: Readonly<Record<string, readonly string[]>>;
}

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
 * The credentials of this page: held in memory only (never in localStorage or a cookie), so a
 * closed tab leaves nothing behind to steal.
 */
interface Credentials {
  token: string | null;
  tenantId: string | null;
}
const credentials: Credentials = { token: null, tenantId: null };
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
    if (credentials.token !== null) request.headers.set('authorization', `Bearer ${credentials.token}`);
    if (credentials.tenantId !== null) request.headers.set('svc-tenant-id', credentials.tenantId);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && credentials.token !== null) onUnauthorized();
    return response;
  },
};

/** The one HTTP client of the console, typed by the server's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(authenticate);

/**
 * Token permissions belong to applications, never to members: the Tokens screen calls the API as
 * an application, with a key its user pastes or picks right after creating it. The key is held in
 * this page's memory only, like the session, and is sent on its own (never with the session).
 */
let tokenKey: string | null = null;

export function setTokenKey(key: string | null): void {
  tokenKey = key;
}

export function currentTokenKey(): string | null {
  return tokenKey;
}

const asApplication: Middleware = {
  onRequest({ request }) {
    if (tokenKey !== null) request.headers.set('svc-api-key', tokenKey);
    return request;
  },
};

/** The client of the Tokens screen: authenticated by the chosen application's key. */
export const tokenApi = createClient<paths>({ baseUrl: window.location.origin });
tokenApi.use(asApplication);

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

import type { Middleware } from 'openapi-fetch';

/**
 * How the console's requests are authenticated, in one module so the way a session travels can
 * change here alone: the member's session (a bearer token and the chosen tenant) on `api`, and the
 * key of the application the Tokens screen acts as on `tokenApi`. Both are held in this page's
 * memory only (never in web storage), so a closed tab leaves nothing behind to steal.
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

/** The member's session and tenant on every request of `api`; a 401 ends the session. */
export const sessionAuth: Middleware = {
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

/**
 * Token permissions belong to applications, never to members: the Tokens screen calls the API as
 * an application, with a key its user pastes or picks right after creating it. The key is sent on
 * its own (never with the session).
 */
let tokenKey: string | null = null;

export function setTokenKey(key: string | null): void {
  tokenKey = key;
}

export function currentTokenKey(): string | null {
  return tokenKey;
}

/** The chosen application's key on every request of `tokenApi`. */
export const applicationAuth: Middleware = {
  onRequest({ request }) {
    if (tokenKey !== null) request.headers.set('svc-api-key', tokenKey);
    return request;
  },
};

import type { Middleware } from 'openapi-fetch';

/**
 * How the console's requests are authenticated, in one module so the way a session travels can
 * change here alone. The session itself is the console cookie (HttpOnly: no script reads it; the
 * browser sends it to this origin only, fetch's default `same-origin` credentials); the page holds
 * the session's CSRF value, in memory only, and sends it as SVC-CSRF on every request, which the
 * server requires of every request that carries the cookie, with the chosen tenant.
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

/** The session's CSRF value and tenant on every request; a 401 ends the session. */
export const sessionAuth: Middleware = {
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

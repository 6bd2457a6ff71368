import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../../core/crypto/constant-time.ts';
import { VaultError } from '../../core/errors/catalogue.ts';
import { consoleCookieName } from '../../core/identity/console-cookie.ts';
import type { AuthService } from '../../core/identity/contract.ts';

/** Headers the console sends with its cookie: the double-submit value of its session. */
export const CSRF_HEADER = 'svc-csrf';
export const CSRF_HEADER_NAME = 'SVC-CSRF';

/**
 * The console's session cookie: `HttpOnly` (no script reads it), `SameSite=Strict` (no other site
 * makes the browser send it), `Path=/` without `Domain` (this host only), `Secure` and the
 * `__Host-` prefix when the browser reached the server over TLS, and an expiry equal to the
 * session's. It holds the session token itself; the server keeps only its keyed hash.
 */
export class ConsoleCookies {
  /** `httpsHosts`: host names of https public URLs (TLS ends in a proxy in front of the server). */
  constructor(private readonly httpsHosts: ReadonlySet<string> = new Set()) {}

  /** Whether the browser talks TLS to this host: a TLS socket, or a host published under https. */
  secure(request: FastifyRequest): boolean {
    return request.protocol === 'https' || this.httpsHosts.has(request.hostname.toLowerCase());
  }

  /** The cookie's name for the origin this request came to. */
  name(request: FastifyRequest): string {
    return consoleCookieName(request.port, this.secure(request));
  }

  /** The session token in the request's console cookie, or null. */
  read(request: FastifyRequest): string | null {
    const header = request.headers.cookie;
    if (header === undefined || header === '') return null;
    const value = parseCookie(header)[this.name(request)];
    return value === undefined || value === '' ? null : value;
  }

  /** Sets the cookie to `token` until `expiresAt` (the session's expiry). */
  set(reply: FastifyReply, request: FastifyRequest, token: string, expiresAt: string): void {
    reply.header(
      'set-cookie',
      stringifySetCookie({
        name: this.name(request),
        value: token,
        httpOnly: true,
        secure: this.secure(request),
        sameSite: 'strict',
        path: '/',
        expires: new Date(expiresAt),
      }),
    );
  }

  /** Tells the browser to drop the cookie. */
  clear(reply: FastifyReply, request: FastifyRequest): void {
    reply.header(
      'set-cookie',
      stringifySetCookie({
        name: this.name(request),
        value: '',
        httpOnly: true,
        secure: this.secure(request),
        sameSite: 'strict',
        path: '/',
        maxAge: 0,
        expires: new Date(0),
      }),
    );
  }
}

/** The host names of the https URLs among `urls` (public URL, accept-link base). */
export function httpsHostsOf(urls: readonly (string | undefined)[]): Set<string> {
  const hosts = new Set<string>();
  for (const url of urls) {
    if (url === undefined) continue;
    try {
      const parsed = new URL(url);
      if (parsed.protocol === 'https:') hosts.add(parsed.hostname.toLowerCase());
    } catch {
      // Not a URL: nothing is published under it.
    }
  }
  return hosts;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function crossSite(detail: string): VaultError {
  return new VaultError('FORBIDDEN', detail);
}

/**
 * A request carrying the console's cookie must come from the console's own pages: the browser's
 * Sec-Fetch-Site (when sent) says same-origin (or none: typed in the address bar), an Origin (when
 * sent; always on requests that change something) names this very host, and, except on the one
 * GET that tells it, SVC-CSRF holds the session's double-submit value. A custom header is never
 * sent by a form or a link, and another origin's script cannot send it without a CORS preflight,
 * which this server never grants; SameSite=Strict already keeps other sites' requests cookieless,
 * and these checks cover same-site pages on other ports of the same host, which browsers let send
 * the cookie.
 */
export function assertFromConsole(
  request: FastifyRequest,
  token: string,
  auth: Pick<AuthService, 'csrfToken'>,
  tellsCsrf: boolean,
): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw crossSite('A request from another site or origin cannot use the console session.');
  }
  const origin = request.headers.origin;
  if (origin !== undefined) {
    let host: string | null = null;
    try {
      host = new URL(origin).host.toLowerCase();
    } catch {
      host = null;
    }
    if (host === null || host !== request.host.toLowerCase()) {
      throw crossSite('A request from another origin cannot use the console session.');
    }
  } else if (!SAFE_METHODS.has(request.method)) {
    throw crossSite('A request that changes something with the console session must carry its Origin.');
  }
  if (tellsCsrf) return;
  const sent = request.headers[CSRF_HEADER];
  const expected = auth.csrfToken(token);
  if (
    typeof sent !== 'string' ||
    !constantTimeEqual(Buffer.from(sent, 'utf8'), Buffer.from(expected, 'utf8'))
  ) {
    throw crossSite(
      `A request with the console session must carry its ${CSRF_HEADER_NAME} header (GET /console/session tells it).`,
    );
  }
}

import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { consoleCookieName } from '../../core/identity/console-cookie.ts';

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

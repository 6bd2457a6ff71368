/**
 * Header and URL rules for forwarding a proxied request, and for relaying the destination's answer.
 */
import { setsConsoleCookie, withoutConsoleCookies } from '../identity/console-cookie.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

/**
 * Hop-by-hop headers, which describe one connection and are never forwarded (RFC 9110's connection
 * rules), plus ones the transport sets itself.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Set by the outbound transport for the new request: host, the body's length, `Expect` handshakes. */
const TRANSPORT_OWNED = new Set(['host', 'content-length', 'expect']);

/** Request header names that may be forwarded: letters, digits, `-` and `_`. */
const FORWARDABLE_NAME = /^[A-Za-z0-9_-]+$/;

/** The vault's own headers (`SVC-API-KEY`, `SVC-PROXY-KEY`, `SVC-PROXY-URL`, `SVC-TRACE-ID`, …). */
export function isVaultHeader(name: string): boolean {
  return name.toLowerCase().startsWith('svc-');
}

function connectionListed(pairs: ReadonlyArray<readonly [string, string]>): Set<string> {
  const listed = new Set<string>();
  for (const [name, value] of pairs) {
    if (name.toLowerCase() !== 'connection') continue;
    for (const token of value.split(',')) if (token.trim() !== '') listed.add(token.trim().toLowerCase());
  }
  return listed;
}

/**
 * The caller's headers as the destination gets them: every `SVC-*`, hop-by-hop and
 * Connection-listed header dropped, names outside `[A-Za-z0-9_-]` dropped, the console's session
 * cookie taken out of `Cookie` (a console page's request to /proxy carries it), the rest kept with
 * their case and order (including `Authorization`, which is meant for the destination).
 */
export function forwardedRequestHeaders(
  pairs: ReadonlyArray<readonly [string, string]>,
): Array<[string, string]> {
  const listed = connectionListed(pairs);
  const out: Array<[string, string]> = [];
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    if (!FORWARDABLE_NAME.test(name) || isVaultHeader(name)) continue;
    if (HOP_BY_HOP.has(lower) || TRANSPORT_OWNED.has(lower) || listed.has(lower)) continue;
    if (lower === 'cookie') {
      const rest = withoutConsoleCookies(value);
      if (rest !== null) out.push([name, rest]);
      continue;
    }
    out.push([name, value]);
  }
  return out;
}

/**
 * The destination's response headers minus hop-by-hop ones, which belong to its connection only,
 * and minus any `Set-Cookie` naming the console's session cookie (the answer comes from the
 * vault's origin: it must not plant a session in the browser). A new object, which the caller may
 * add to.
 */
export function relayedResponseHeaders(
  headers: Readonly<Record<string, string | string[]>>,
): Record<string, string | string[]> {
  const connection = headers.connection;
  const listed = new Set<string>();
  if (connection !== undefined) {
    for (const value of typeof connection === 'string' ? [connection] : connection)
      for (const token of value.split(',')) listed.add(token.trim().toLowerCase());
  }
  const out = keyedRecord<string | string[]>();
  for (const name in headers) {
    const value = headers[name]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
    if (lower === 'set-cookie') {
      const kept = (typeof value === 'string' ? [value] : value).filter((v) => !setsConsoleCookie(v));
      if (kept.length > 0) out[name] = kept;
      continue;
    }
    out[name] = value;
  }
  return out;
}

export const PROXY_KEY_QUERY = 'svc-proxy-key';

/**
 * `<base>` + the path after `/proxy` + the caller's query (without `svc-proxy-key`). One slash
 * joins base and path; a query already on the base comes first.
 */
export function destinationFor(base: string, suffix: string, rawQuery: string): URL {
  const url = new URL(base);
  if (suffix !== '' && suffix !== '/') {
    url.pathname = url.pathname.replace(/\/+$/, '') + (suffix.startsWith('/') ? suffix : `/${suffix}`);
  } else if (suffix === '/' && !url.pathname.endsWith('/')) {
    url.pathname = `${url.pathname}/`;
  }
  const kept = rawQuery.split('&').filter((part) => part !== '' && decodeQueryName(part) !== PROXY_KEY_QUERY);
  // Nothing to add, and no `?` to drop: the setter would leave the URL as it is.
  if (kept.length === 0 && !url.href.includes('?')) return url;
  const existing = url.search.replace(/^\?/, '');
  const query = [existing, ...kept].filter((part) => part !== '').join('&');
  url.search = query === '' ? '' : `?${query}`;
  return url;
}

function decodeQueryName(part: string): string {
  const name = part.split('=')[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

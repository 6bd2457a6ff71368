/**
 * A proxy invocation as the HTTP edge hands it over (`ProxyInvocation`) and the answer it gets back
 * (`ProxyResponse`), with the vault's own proxy headers and how a request's headers, query and
 * body kind are read.
 */
import { Readable } from 'node:stream';
import type { Principal } from '../access/principal.ts';
import type { RequestRateLimits } from '../identity/rate-limiter.ts';

export const PROXY_KEY_HEADER = 'svc-proxy-key';
export const PROXY_URL_HEADER = 'svc-proxy-url';
export const DESTINATION_STATUS_HEADER = 'svc-proxy-destination-status';

/** One request to `/proxy[/**]`, as the HTTP edge hands it over. */
export interface ProxyInvocation {
  readonly method: string;
  /** The raw (still percent-encoded) path after `/proxy`: '' or starting with '/'. */
  readonly path: string;
  /** The raw query string without `?`. */
  readonly rawQuery: string;
  /** Header name/value pairs as received (case kept, repeats kept). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | null;
  /**
   * Authenticates `SVC-API-KEY` (null for an unknown key). Injected so the proxy uses the same
   * key check as every other route.
   */
  readonly authenticate: (apiKey: string) => Promise<Principal | null>;
  /**
   * The server's request rate limit, or null for none. Counted before anything is opened,
   * detokenized, run, forwarded or audited: per API key (the same bucket as every other route), per
   * proxy for requests without one, and per `clientAddress` for a proxy key this vault does not know.
   */
  readonly limits?: RequestRateLimits | null;
  /** The caller's address, for counting requests that name an unknown proxy key. */
  readonly clientAddress?: string;
}

export interface ProxyResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Readable;
}

/** Media types whose bodies are detokenized; anything else is forwarded byte for byte. */
export type BodyKind = 'json' | 'form' | 'text' | 'opaque';

export function bodyKindOf(contentType: string | undefined): BodyKind {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  if (media === 'application/x-www-form-urlencoded') return 'form';
  if (media.startsWith('text/') || media === 'application/xml' || media.endsWith('+xml')) return 'text';
  return 'opaque';
}

/** The value of header `name` (lower case): repeats joined with `, `; undefined when absent. */
export function header(pairs: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  let joined: string | undefined;
  for (const [n, v] of pairs) {
    if (n.length === name.length && n.toLowerCase() === name)
      joined = joined === undefined ? v : `${joined}, ${v}`;
  }
  return joined;
}

/** The first value of query parameter `name` (lower case, matched without case). */
export function queryValue(rawQuery: string, name: string): string | undefined {
  for (const [key, value] of new URLSearchParams(rawQuery)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** A body for a response built in the vault. */
export function bodyOf(buffer: Buffer): Readable {
  return Readable.from([buffer]);
}

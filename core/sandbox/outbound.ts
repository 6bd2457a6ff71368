/**
 * The network function behind the sandbox's `fetch`. The sandbox does not reach the network
 * itself: whoever builds the sandbox injects an `OutboundFetch` that applies the vault's destination
 * policy (HTTPS, DNS names, TLS ≥ 1.2, private and loopback addresses refused unless allow-listed).
 * Without one, every `fetch` is refused with a clear error.
 */
import { VaultError } from '../errors/catalogue.ts';

export interface OutboundRequest {
  readonly url: string;
  /** Upper case. */
  readonly method: string;
  /** Header name/value pairs, names as the code gave them. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string | null;
  /** The implementation must give up after this long. */
  readonly timeoutMs: number;
  /** The implementation must refuse a response body larger than this (bytes). */
  readonly maxResponseBytes: number;
}

export interface OutboundResponse {
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The response body as UTF-8 text. */
  readonly body: string;
}

export type OutboundFetch = (request: OutboundRequest) => Promise<OutboundResponse>;

/** Timeout of one `fetch` from formula code (also bounded by the invocation's deadline). */
export const SANDBOX_FETCH_TIMEOUT_MS = 25_000;
/** Largest response body one `fetch` from formula code may read. */
export const SANDBOX_FETCH_MAX_RESPONSE_BYTES = 1024 * 1024;

/** The default: no network. */
export const refuseOutbound: OutboundFetch = async () => {
  throw new VaultError(
    'FORBIDDEN',
    'Outbound network access from reactor code is not configured in this vault.',
  );
};

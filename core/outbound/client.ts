import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import type { Agent, request as undiciRequest } from 'undici';
import { VaultError, isVaultError } from '../errors/catalogue.ts';
import { refusedAddressClass } from './address-policy.ts';
import { checkedDestination } from './destination-url.ts';
import type { OutboundSettings } from './settings.ts';
import { keyedRecord } from '../validation/keyed-record.ts';

/** Resolves a host name to every address it has (the default is the system resolver, `dns.lookup`). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export type OutboundHeaders = Record<string, string | string[]>;

export interface OutboundRequest {
  readonly url: string | URL;
  readonly method: string;
  readonly headers?: OutboundHeaders;
  readonly body?: string | Uint8Array | Readable | null;
  /** Aborts the request; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface OutboundStreamResponse {
  readonly status: number;
  readonly headers: OutboundHeaders;
  /** The destination's body as it arrives; read it or `destroy()` it. */
  readonly body: Readable;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: OutboundHeaders;
  readonly body: Buffer;
}

/**
 * The one way the vault talks to third-party servers (proxy forwarding, the sandbox's `fetch`).
 * Every request obeys the destination policy:
 * - `https:` only, host named by DNS (IP literals refused), no credentials in the URL;
 * - TLS 1.2 or later, the system's CAs plus the operator's extra CA;
 * - every connection's resolved addresses are checked by the address policy inside the socket's own
 *   DNS lookup, so the address checked is the address connected to (no DNS-rebinding window),
 *   keep-alive reconnects included;
 * - redirects are never followed: a 3xx is the response;
 * - connect, headers and idle-body timeouts of `timeoutMs` each.
 * Failures are VaultErrors: VALIDATION_FAILED (bad URL, field `url`), DESTINATION_TIMEOUT, and
 * DESTINATION_UNREACHABLE with one detail (UNREACHABLE_DETAIL) for every destination that is refused
 * by the address policy, does not resolve, refuses the connection or fails TLS: told apart, they
 * would let a caller map which internal names exist. Which one it was goes to the failure listeners
 * (the server's log). Details never contain request data.
 */
export interface OutboundClient {
  readonly settings: OutboundSettings;
  /** Sends a request; the response body streams. */
  stream(req: OutboundRequest): Promise<OutboundStreamResponse>;
  /** Sends a request and reads the whole body, refusing one above `maxBytes` (DESTINATION_UNREACHABLE). */
  request(req: OutboundRequest, options?: { maxBytes?: number }): Promise<OutboundResponse>;
  /**
   * Loads the HTTP client now instead of at the first request: a server calls it once it listens,
   * so no request waits while the client's modules load on the event loop.
   */
  warm(): Promise<void>;
  /**
   * Calls `listener` with every failed request's host and cause (for the operator's log; never for
   * the caller). Returns the function that removes it.
   */
  onFailure(listener: (failure: OutboundFailure) => void): () => void;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/** A failed request as the operator's log may show it: the host and the class of failure, no URL path, query or data. */
export interface OutboundFailure {
  readonly host: string;
  /** e.g. `refused by the address policy: api.example resolves to a loopback address`, `ENOTFOUND`, `ECONNREFUSED`. */
  readonly reason: string;
}

/** The one answer to every refused or unreachable destination. */
export const UNREACHABLE_DETAIL =
  'The destination could not be reached: it is not allowed, does not resolve, refused the connection or ' +
  'failed TLS verification. The server log names the cause.';

/** Default cap of `request()` bodies. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const REFUSED = Symbol('destination refused');

interface RefusedError extends Error {
  [REFUSED]: true;
}

function refused(message: string): RefusedError {
  return Object.assign(new Error(message), { [REFUSED]: true as const, code: 'SVC_DESTINATION_REFUSED' });
}

function systemResolver(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

/** A `lookup` for net/tls sockets that refuses the whole name when any of its addresses is refused. */
export function guardedLookup(settings: OutboundSettings, resolve: Resolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname).then(
      (all) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = family === 0 ? all : all.filter((a) => a.family === family);
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
          return;
        }
        for (const { address } of addresses) {
          const kind = refusedAddressClass(settings.allow, hostname, address);
          if (kind !== null) {
            // A name with one bad address is refused whole: which address the socket would pick is not ours to bet on.
            callback(refused(`${hostname} resolves to a ${kind} address`), []);
            return;
          }
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, (addresses[0] as LookupAddress).address, (addresses[0] as LookupAddress).family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, []),
    );
  };
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 8) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Maps a transport failure to the catalogue: a timeout names the host, every other failure is
 * UNREACHABLE_DETAIL (the cause stays on the error, for the log only).
 */
export function outboundError(error: unknown, host: string): VaultError {
  for (const link of causes(error)) {
    if (isVaultError(link)) return link;
    const code = codeOf(link);
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      return new VaultError('DESTINATION_TIMEOUT', `${host} did not answer in time.`);
    }
  }
  return new VaultError('DESTINATION_UNREACHABLE', UNREACHABLE_DETAIL, { cause: error });
}

/** Why a request failed, for the operator's log: the policy's refusal, else the first error code, else the error's class. */
export function failureReason(error: unknown): string {
  const chain = causes(error);
  for (const link of chain) {
    if (link instanceof Error && REFUSED in link) return `refused by the address policy: ${link.message}`;
  }
  for (const link of chain) {
    if (isVaultError(link) && link.cause === undefined) return `${link.code}: ${link.detail}`;
    const code = codeOf(link);
    if (code !== undefined) return code;
  }
  return chain[0] instanceof Error ? chain[0].name : 'unknown';
}

function checkedUrl(input: string | URL): URL {
  const checked = checkedDestination(input);
  if (typeof checked === 'string') {
    throw new VaultError('VALIDATION_FAILED', `The destination URL ${checked}.`, {
      errors: { url: [checked] },
    });
  }
  return checked;
}

/**
 * The TLS context trusting the public roots and `caPem`, kept for the last PEM asked for: a context
 * of every root CA is costly to build (it parses each certificate), each service container makes a
 * client, and the PEM is the operator's one setting. A context holds public certificates only and
 * is never changed.
 */
let lastContext: { readonly caPem: string; readonly context: SecureContext } | undefined;
function secureContextTrusting(caPem: string): SecureContext {
  if (lastContext?.caPem !== caPem) {
    const context = createSecureContext({ ca: [...rootCertificates, caPem], minVersion: 'TLSv1.2' });
    lastContext = { caPem, context };
  }
  return lastContext.context;
}

/**
 * The undici Agent options of every outbound connection: TLS 1.2 or later, the system's CAs plus
 * the operator's, the address policy inside the socket's own lookup, and the timeouts. One copy,
 * so that anything measured against "the same transport" (bench/proxy-servers.ts) uses it too.
 */
export function outboundAgentOptions(
  settings: OutboundSettings,
  resolve: Resolver = systemResolver,
): Agent.Options {
  return {
    connect: {
      timeout: settings.timeoutMs,
      minVersion: 'TLSv1.2',
      // Built once: a `ca` list on each connection would rebuild a context of every root CA per handshake.
      ...(settings.caPem === null ? {} : { secureContext: secureContextTrusting(settings.caPem) }),
      lookup: guardedLookup(settings, resolve),
    },
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  };
}

export function createOutboundClient(
  settings: OutboundSettings,
  options: { resolve?: Resolver } = {},
): OutboundClient {
  // The options (and the TLS context of a configured CA) are made now, so a bad setting fails here;
  // undici itself is loaded at the first request: every service container makes a client, and
  // most `svc` processes never send one, so they never pay for loading it.
  const agentOptions = outboundAgentOptions(settings, options.resolve);
  const listeners = new Set<(failure: OutboundFailure) => void>();
  const failed = (error: unknown, host: string): VaultError => {
    const reason = failureReason(error);
    for (const listener of listeners) listener({ host, reason });
    return outboundError(error, host);
  };
  type Loaded = { agent: Agent; request: typeof undiciRequest };
  let undici: Promise<Loaded> | undefined;
  // Once loaded, a request goes straight to it rather than through one more await.
  let loaded: Loaded | undefined;
  const connect = () =>
    (undici ??= import('undici').then(
      ({ Agent: UndiciAgent, request }) => (loaded = { agent: new UndiciAgent(agentOptions), request }),
    ));

  async function stream(req: OutboundRequest): Promise<OutboundStreamResponse> {
    const url = checkedUrl(req.url);
    try {
      const { agent, request } = loaded ?? (await connect());
      const response = await request(url, {
        dispatcher: agent,
        method: req.method as 'GET',
        headers: req.headers ?? {},
        body: req.body ?? null,
        signal: req.signal ?? null,
        headersTimeout: settings.timeoutMs,
        bodyTimeout: settings.timeoutMs,
      });
      return { status: response.statusCode, headers: copyHeaders(response.headers), body: response.body };
    } catch (error) {
      if (req.signal?.aborted === true) throw error;
      throw failed(error, url.hostname);
    }
  }

  return {
    settings,
    stream,
    async request(req, { maxBytes = DEFAULT_MAX_RESPONSE_BYTES } = {}) {
      const response = await stream(req);
      const host = checkedUrl(req.url).hostname;
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body) {
          const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
          size += buffer.length;
          if (size > maxBytes) {
            response.body.destroy();
            throw new VaultError(
              'DESTINATION_UNREACHABLE',
              `${host} answered with more than ${maxBytes} bytes.`,
            );
          }
          chunks.push(buffer);
        }
      } catch (error) {
        throw failed(error, host);
      }
      return { status: response.status, headers: response.headers, body: Buffer.concat(chunks) };
    },
    onFailure(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    warm: async () => {
      await connect();
    },
    close: async () => {
      if (undici !== undefined) await (await undici).agent.close();
    },
  };
}

function copyHeaders(headers: Record<string, string | string[] | undefined>): OutboundHeaders {
  const out: OutboundHeaders = keyedRecord();
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

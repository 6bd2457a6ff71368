import http from 'node:http';
import { VaultError } from '../../core/errors/catalogue.ts';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../client/api-client.ts';

/** Statuses whose response has no body (a Response with one is refused). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` for the CLI's one request per command: plain `http:` URLs (the local server, a server on
 * the loopback or the LAN) go over node:http, one connection that is closed after the answer; any
 * other URL (https) goes to the global fetch. Node's global fetch connects through its bundled
 * undici (a WebAssembly HTTP parser), which cost a one-request command hundreds of milliseconds on a
 * busy machine, mostly while the process exited, for a request the server answers in two.
 * A server that cannot be reached is named with the reason (`unreachable`), whichever way it went.
 */
export async function cliFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = input instanceof Request ? input : new Request(input, init);
  const url = new URL(request.url);
  if (url.protocol !== 'http:') {
    return fetch(request).catch((error: unknown) => {
      throw unreachable(url, error);
    });
  }
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  return new Promise((resolve, reject) => {
    const failed = (error: unknown) => reject(unreachable(url, error));
    const outgoing = http.request(url, {
      method: request.method,
      headers,
      agent: false,
      signal: request.signal,
    });
    outgoing.on('error', failed);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', failed);
      incoming.on('end', () => {
        const status = incoming.statusCode ?? 0;
        const answer = new Headers();
        const raw = incoming.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) answer.append(raw[i] ?? '', raw[i + 1] ?? '');
        resolve(
          new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), {
            status,
            statusText: incoming.statusMessage ?? '',
            headers: answer,
          }),
        );
      });
    });
    outgoing.end(body);
  });
}

/** What went wrong on the way, by the system's error code, as a person reads it. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved (try again)',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection was closed',
};

/** The first error code along an error's causes (fetch wraps the socket's error in its own). */
function codeOf(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The message of the deepest cause (fetch's own "fetch failed" says nothing): "bad port". */
function innermostMessage(error: unknown): string | undefined {
  let message: string | undefined;
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++)
    if (at.message !== '') message = at.message;
  return message;
}

/**
 * "cannot reach http://127.0.0.1:9: connection refused" (exit 3, as for any unavailable service).
 * Only the server's origin is named: a path or query could carry something not meant for a terminal.
 */
export function unreachable(url: URL, error: unknown): VaultError {
  const code = codeOf(error);
  let reason = code === undefined ? undefined : REASONS[code];
  if (reason === undefined && code !== undefined && /CERT|SSL|TLS/.test(code)) reason = `TLS: ${code}`;
  reason ??= code ?? innermostMessage(error) ?? 'no answer';
  return new VaultError('SERVICE_UNAVAILABLE', `cannot reach ${url.origin}: ${reason}`, { cause: error });
}

/** The typed API client as the CLI uses it: over cliFetch. */
export function cliApiClient(options: Omit<ApiClientOptions, 'fetch'>): ApiClient {
  return createApiClient({ ...options, fetch: cliFetch });
}

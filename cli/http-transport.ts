import http from 'node:http';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../client/api-client.ts';

/** Statuses whose response has no body (a Response with one is refused). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` for the CLI's one request per command: plain `http:` URLs (the local server, a server on
 * the loopback or the LAN) go over node:http, one connection that is closed after the answer; any
 * other URL (https) goes to the global fetch. Node's global fetch connects through its bundled
 * undici (a WebAssembly HTTP parser), which cost a one-request command hundreds of milliseconds on a
 * busy machine, mostly while the process exited, for a request the server answers in two.
 * Failures reject as fetch does, a TypeError "fetch failed" with the cause.
 */
export async function cliFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = input instanceof Request ? input : new Request(input, init);
  const url = new URL(request.url);
  if (url.protocol !== 'http:') return fetch(request);
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  return new Promise((resolve, reject) => {
    const failed = (error: unknown) => reject(new TypeError('fetch failed', { cause: error }));
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

/** The typed API client as the CLI uses it: over cliFetch. */
export function cliApiClient(options: Omit<ApiClientOptions, 'fetch'>): ApiClient {
  return createApiClient({ ...options, fetch: cliFetch });
}

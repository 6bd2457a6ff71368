import type { OutboundFetch } from '../sandbox/outbound.ts';
import type { OutboundClient } from './client.ts';
import { gatheredHeaders } from './header-record.ts';

/**
 * The sandbox's `fetch` network over the outbound client, so code in the sandbox obeys the same
 * destination policy as the proxy (HTTPS, DNS names, TLS ≥ 1.2, SSRF guard, no redirects).
 */
export function sandboxFetchFrom(client: OutboundClient): OutboundFetch {
  return async (request) => {
    const response = await client.request(
      {
        url: request.url,
        method: request.method,
        headers: gatheredHeaders(request.headers),
        body: request.body,
        signal: AbortSignal.timeout(request.timeoutMs),
      },
      { maxBytes: request.maxResponseBytes },
    );
    const pairs: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(response.headers))
      for (const item of [value].flat()) pairs.push([name, item]);
    return {
      status: response.status,
      statusText: '',
      url: request.url,
      headers: pairs,
      body: response.body.toString('utf8'),
    };
  };
}

/** A proxy as its example call needs it. */
export interface ProxyCallee {
  readonly key: string;
  readonly require_auth: boolean;
}

/**
 * A `curl` call through the proxy, ready to paste into a shell: the proxy named by its key, an
 * application key from the environment when the proxy requires one (never a real key in the text),
 * and a JSON body with a token expression to show where detokenization happens.
 */
export function exampleCall(origin: string, proxy: ProxyCallee): string {
  return [
    `curl -X POST '${origin}/proxy' \\`,
    `  -H 'svc-proxy-key: ${proxy.key}' \\`,
    ...(proxy.require_auth ? [`  -H "SVC-API-KEY: $SVC_API_KEY" \\`] : []),
    `  -H 'content-type: application/json' \\`,
    `  -d '{"card": "{{ <token id> }}"}'`,
  ].join('\n');
}

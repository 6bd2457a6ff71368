/**
 * The message of a proxy invocation's audit entry: method, destination host, the answer's status
 * and how long the vault took to get it (from the request's arrival to the destination's status
 * line, transforms included), e.g. `Proxy invoked: POST api.example.com → 200 in 84 ms`. Never
 * bodies, header values, paths or queries: they may carry data. Clients read the traffic of a proxy
 * from these messages (the console's traffic view), so the format is documented in docs/proxies.md
 * and changes only with it.
 */
export function proxyInvocationMessage(invocation: {
  readonly method: string;
  readonly host: string;
  readonly status: number;
  readonly durationMs: number;
}): string {
  // A DNS name is at most 253 characters; the host is cut first so the figures always fit the
  // 250 characters of a message.
  const host = invocation.host.length > 150 ? `${invocation.host.slice(0, 149)}…` : invocation.host;
  const ms = Math.max(0, Math.round(invocation.durationMs));
  return `Proxy invoked: ${invocation.method.slice(0, 20)} ${host} → ${invocation.status} in ${ms} ms`;
}
